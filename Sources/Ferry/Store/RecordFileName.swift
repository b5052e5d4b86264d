/// The reversible encoding of a record id into a path under `records/<Entity>/`.
///
/// - `a`–`z`, `0`–`9`, `-` and `_` stand for themselves; so does `.` except as the first
///   character (so `.`, `..` and hidden names cannot occur).
/// - An upper-case letter becomes `^` and the letter in lower case (`Alice` → `^alice`), so
///   two ids that differ only in case never share a file on a case-insensitive file system.
/// - Every other byte of the id's UTF-8 (space, `/`, `\`, `%`, `^`, control characters,
///   non-ASCII) becomes `%XX` with upper-case hex.
/// - The file name is the encoding plus `.json`. An encoding longer than 240 bytes is cut into
///   240-byte pieces; every piece but the last becomes a directory whose name ends in `~`
///   (`~` never occurs in an encoding otherwise).
///
/// No output character outside `%XX` is an upper-case letter, so folding case cannot make two
/// encodings equal; decoding accepts only canonical encodings, so the mapping is one-to-one.
public enum RecordFileName {
    static let pieceLength = 240
    public static let fileExtension = ".json"

    /// The encoded id, without extension or splitting.
    public static func encode(_ id: RecordID) -> String {
        // Most ids (lower-case UUIDs, numbers, slugs) encode to themselves.
        if isPlain(id) { return id.rawValue }
        var output: [UInt8] = []
        appendEncoded(id, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the encoded id's bytes to `output`.
    static func appendEncoded(_ id: RecordID, to output: inout [UInt8]) {
        output.reserveCapacity(output.count + id.rawValue.utf8.count + 8)
        for (offset, byte) in id.rawValue.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                output.append(byte)
            case UInt8(ascii: ".") where offset > 0:
                output.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                output.append(UInt8(ascii: "^"))
                output.append(byte + 32)
            default:
                output.append(UInt8(ascii: "%"))
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0x0F))
            }
        }
    }

    /// Whether the id encodes to itself (every byte plain, no leading `.`).
    private static func isPlain(_ id: RecordID) -> Bool {
        var first = true
        for byte in id.rawValue.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                break
            case UInt8(ascii: "."):
                if first { return false }
            default:
                return false
            }
            first = false
        }
        return true
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    /// Decodes a canonical encoding; `nil` for anything `encode` would not produce.
    public static func decode(_ encoded: String) -> RecordID? {
        var bytes: [UInt8] = []
        var input = Array(encoded.utf8)[...]
        while let byte = input.first {
            input = input.dropFirst()
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                bytes.append(byte)
            case UInt8(ascii: "."):
                guard !bytes.isEmpty else { return nil }
                bytes.append(byte)
            case UInt8(ascii: "^"):
                guard let letter = input.first, letter >= UInt8(ascii: "a"), letter <= UInt8(ascii: "z") else {
                    return nil
                }
                input = input.dropFirst()
                bytes.append(letter - 32)
            case UInt8(ascii: "%"):
                guard input.count >= 2, let high = hexValue(input[input.startIndex]),
                    let low = hexValue(input[input.startIndex + 1])
                else { return nil }
                input = input.dropFirst(2)
                let decoded = high << 4 | low
                // Canonical: a byte that has a plain or ^ form must not be %-escaped.
                if encode(byteAlone: decoded, first: bytes.isEmpty) { return nil }
                bytes.append(decoded)
            default:
                return nil
            }
        }
        guard let text = String(validatingUTF8Bytes: bytes), text.utf8.count == bytes.count else { return nil }
        return try? RecordID(text)
    }

    /// Whether `byte` is written as `%XX` at this position (`first`: the id's first byte).
    static func isEscaped(_ byte: UInt8, first: Bool) -> Bool {
        !encode(byteAlone: byte, first: first)
    }

    /// Whether `byte` is written without `%` escaping at this position.
    private static func encode(byteAlone byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        case UInt8(ascii: "."): return !first
        default: return false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - 48
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - 55
        default: return nil  // lower-case hex is not canonical
        }
    }

    /// The record file's path relative to `records/<Entity>/`, with `suffix` (default `.json`).
    public static func relativePath(for id: RecordID, suffix: String = fileExtension) -> String {
        let encoded = encode(id)
        guard encoded.utf8.count > pieceLength else {
            var path = encoded
            path.reserveCapacity(encoded.utf8.count + suffix.utf8.count)
            path += suffix
            return path
        }
        var pieces: [String] = []
        var rest = Array(encoded.utf8)[...]
        while rest.count > pieceLength {
            pieces.append(String(decoding: rest.prefix(pieceLength), as: UTF8.self) + "~")
            rest = rest.dropFirst(pieceLength)
        }
        pieces.append(String(decoding: rest, as: UTF8.self) + suffix)
        return pieces.joined(separator: "/")
    }

    /// Reads an id back from a relative path such as `^alice.json` or `abc…~/def.json`.
    public static func id(fromRelativePath path: String) -> RecordID? {
        guard path.hasSuffix(fileExtension) else { return nil }
        let pieces = path.dropLast(fileExtension.count).split(separator: "/", omittingEmptySubsequences: false)
        var encoded = ""
        for (index, piece) in pieces.enumerated() {
            if index < pieces.count - 1 {
                guard piece.hasSuffix("~"), piece.utf8.count == pieceLength + 1 else { return nil }
                encoded += piece.dropLast()
            } else {
                guard !piece.isEmpty, !piece.hasSuffix("~") else { return nil }
                encoded += piece
            }
        }
        guard let id = decode(encoded), relativePath(for: id) == path else { return nil }
        return id
    }
}

extension String {
    /// Decodes UTF-8, returning `nil` on any invalid sequence (unlike `String(decoding:as:)`,
    /// which repairs).
    init?(validatingUTF8Bytes bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        // Decoding repairs invalid sequences with U+FFFD, which changes the bytes.
        guard text.utf8.elementsEqual(bytes) else { return nil }
        self = text
    }
}

extension RecordFileName {
    /// Decodes an encoding given as bytes; fast for the common all-plain case.
    static func decode<Bytes: Collection>(bytes: Bytes) -> RecordID? where Bytes.Element == UInt8 {
        var plain = !bytes.isEmpty && bytes.count <= RecordID.maximumByteCount && bytes.first != UInt8(ascii: ".")
        if plain {
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
                    UInt8(ascii: "_"), UInt8(ascii: "."):
                    continue
                default:
                    plain = false
                }
                if !plain { break }
            }
        }
        if plain { return RecordID(unchecked: String(decoding: bytes, as: UTF8.self)) }
        return decode(String(decoding: bytes, as: UTF8.self))
    }
}
