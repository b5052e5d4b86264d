/// The sealed form of one object of an encrypted hub: a small plaintext header, then the
/// content sealed with XChaCha20-Poly1305 under the hub's data key of the header's epoch, with
/// the header and the object's key bound as associated data.
///
/// ```
/// "FHS1"  epoch (4, big-endian)  size (8, big-endian: the whole object)  nonce (24)
/// XChaCha20-Poly1305(key[epoch], nonce, aad: header ‖ UTF-8 key,
///                    length (8, big-endian) ‖ content ‖ zero padding) ‖ tag (16)
/// ```
///
/// An object renamed or moved by the storage is opened under another key name and fails; one
/// that is shorter or longer than its header says has not fully arrived (or was doubled by a
/// copying tool), which the hub treats as not there yet.
enum HubSeal {
    static let magic: [UInt8] = Array("FHS1".utf8)
    static let headerByteCount = 40
    static let tagByteCount = 16
    /// What sealing adds to an unpadded object: the header, the content's length and the tag.
    static let overhead = headerByteCount + 8 + tagByteCount

    /// What opening found.
    enum Failure: Error, Equatable {
        /// Shorter or longer than its header says, or too short for a header.
        case incomplete
        /// Not a sealed object at all (no magic): a plaintext object, or something else.
        case notSealed
        /// Sealed under an epoch whose key this reader does not hold.
        case unknownEpoch(UInt32)
        /// The key does not open it: moved, renamed or altered.
        case doesNotOpen
    }

    /// The sealed bytes of `content`, to be stored as `name`.
    static func seal(_ content: [UInt8], name: String, key: [UInt8], epoch: UInt32, padding: HubPadding) -> [UInt8] {
        var plaintext = bigEndian(UInt64(content.count)) + content
        let padded = padding.paddedLength(of: plaintext.count)
        if padded > plaintext.count { plaintext += [UInt8](repeating: 0, count: padded - plaintext.count) }
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<24).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let size = UInt64(headerByteCount + plaintext.count + tagByteCount)
        let header = magic + bigEndian(epoch) + bigEndian(size) + nonce
        // A 32-byte key and a 24-byte nonce are always accepted.
        let sealed = (try? ChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: header + Array(name.utf8))) ?? []
        return header + sealed
    }

    /// The epoch an object is sealed under, read from its header without opening it.
    static func epoch(of bytes: [UInt8]) throws(Failure) -> UInt32 {
        guard bytes.count >= 4, Array(bytes[0..<4]) == magic else { throw bytes.count < 4 ? .incomplete : .notSealed }
        guard bytes.count >= headerByteCount + 8 + tagByteCount else { throw .incomplete }
        return UInt32(integer(bytes[4..<8]))
    }

    /// The content of the sealed object `bytes` stored as `name`.
    static func open(_ bytes: [UInt8], name: String, keys: (UInt32) -> [UInt8]?) throws(Failure) -> [UInt8] {
        let epoch = try epoch(of: bytes)
        guard integer(bytes[8..<16]) == UInt64(bytes.count) else { throw .incomplete }
        guard let key = keys(epoch) else { throw .unknownEpoch(epoch) }
        let header = Array(bytes[0..<headerByteCount])
        let plaintext: [UInt8]
        do {
            plaintext = try ChaCha20Poly1305.open(
                Array(bytes[headerByteCount...]), key: key, nonce: Array(bytes[16..<40]), associatedData: header + Array(name.utf8))
        } catch { throw .doesNotOpen }
        let length = integer(plaintext[0..<8])
        guard length <= UInt64(plaintext.count - 8) else { throw .doesNotOpen }
        return Array(plaintext[8..<(8 + Int(length))])
    }

    /// The largest sealed object whose content is at most `limit` bytes.
    static func sealedLimit(of limit: Int, padding: HubPadding) -> Int {
        headerByteCount + padding.paddedLength(of: limit + 8) + tagByteCount
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<(T.bitWidth / 8)).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    static func integer(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
