/// Percent-encoding (RFC 3986, 2.1), one implementation for every client and the server: S3's
/// canonical requests, PocketBase's query strings, and the server's request targets.
///
/// ```swift
/// PercentEncoding.encode("a b/c")                        // "a%20b%2Fc"
/// PercentEncoding.encode("a b/c", keepingSlashes: true)  // "a%20b/c"
/// PercentEncoding.decode("a%20b")                        // "a b"
/// PercentEncoding.decode("a%2")                          // nil
/// ```
enum PercentEncoding {
    private static let digits = Array("0123456789ABCDEF".utf8)

    /// The unreserved characters (`A-Z a-z 0-9 - _ . ~`) kept, and `/` when asked; every other
    /// byte of the UTF-8 as `%XX` in upper case (as SigV4 requires, and any server accepts).
    static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        encode(bytes: text.utf8, keepingSlashes: keepingSlashes)
    }

    /// ``encode(_:keepingSlashes:)`` of raw bytes.
    static func encode(bytes: some Sequence<UInt8>, keepingSlashes: Bool = false) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.underestimatedCount)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                output.append(byte)
            case UInt8(ascii: "/") where keepingSlashes:
                output.append(byte)
            default:
                output += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes every `%XX`; `nil` when an escape is broken or the result is not UTF-8 (what a
    /// server does with a request target).
    static func decode(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(SHA256Digest.nibble), let low = iterator.next().flatMap(SHA256Digest.nibble) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        let decoded = String(decoding: bytes, as: UTF8.self)
        guard decoded.utf8.elementsEqual(bytes) else { return nil }  // invalid UTF-8 was repaired
        return decoded
    }

    /// Decodes every `%XX`, leaving a `%` not followed by two hexadecimal digits as itself (so
    /// `100%` reads as `100%`): what SigV4 does before encoding a path again.
    static func decodeLeniently<Bytes: Collection<UInt8>>(_ text: Bytes) -> [UInt8] {
        let bytes = Array(text)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = SHA256Digest.nibble(bytes[index + 1]), let low = SHA256Digest.nibble(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }
}
