/// The recovery key of an encrypted hub: 32 random bytes that unwrap its data keys when every
/// member's store and the passphrase are lost. `ferry hub init --encrypt` prints it once; the
/// hub keeps only the public half of the X25519 key made from it.
///
/// Written as `FERRY-RK-` and eleven groups of five base32 letters (RFC 4648): the 32 bytes and
/// a 2-byte checksum, so that a mistyped key is told from a wrong one.
public struct HubRecoveryKey: Sendable, Hashable {
    let bytes: [UInt8]
    static let prefix = "FERRY-RK-"
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// A new random key.
    static func generate() -> HubRecoveryKey { HubRecoveryKey(bytes: HubKeyring.randomBytes(32)) }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// A key as the user typed it (any case; dashes and spaces ignored); `nil` when it is not
    /// one or its checksum is wrong.
    public init?(_ text: String) {
        var letters = text.uppercased().filter { $0 != "-" && $0 != " " }
        let compactPrefix = Self.prefix.filter { $0 != "-" }
        guard letters.hasPrefix(compactPrefix) else { return nil }
        letters.removeFirst(compactPrefix.count)
        var bits: UInt64 = 0
        var count = 0
        var decoded: [UInt8] = []
        for letter in letters.utf8 {
            guard let value = Self.alphabet.firstIndex(of: letter) else { return nil }
            bits = bits << 5 | UInt64(value)
            count += 5
            if count >= 8 {
                count -= 8
                decoded.append(UInt8(truncatingIfNeeded: bits >> UInt64(count)))
            }
        }
        guard decoded.count == 34, Array(SHA256.hash(Array(decoded[0..<32])).bytes.prefix(2)) == Array(decoded[32..<34]) else { return nil }
        bytes = Array(decoded[0..<32])
    }

    /// The key as it is printed.
    public var text: String {
        let data = bytes + SHA256.hash(bytes).bytes.prefix(2)
        var letters: [UInt8] = []
        var bits: UInt64 = 0
        var count = 0
        for byte in data {
            bits = bits << 8 | UInt64(byte)
            count += 8
            while count >= 5 {
                count -= 5
                letters.append(Self.alphabet[Int((bits >> UInt64(count)) & 31)])
            }
        }
        if count > 0 { letters.append(Self.alphabet[Int((bits << UInt64(5 - count)) & 31)]) }
        var groups: [String] = []
        var index = 0
        while index < letters.count {
            groups.append(String(decoding: letters[index..<min(index + 5, letters.count)], as: UTF8.self))
            index += 5
        }
        return Self.prefix + groups.joined(separator: "-")
    }

    /// The X25519 key the hub wraps its keys to.
    var agreementKey: X25519PrivateKey {
        let secret = HKDFSHA256.derive(secret: bytes, salt: [], info: Array("ferry hub recovery key".utf8))
        return (try? X25519PrivateKey(rawRepresentation: secret)) ?? .generate()
    }
}
