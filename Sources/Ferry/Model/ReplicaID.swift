import Foundation

/// The identity of one replica of a store: a UUID made by `init`, in lowercase text form.
///
/// Replica ids break ties between equal clock stamps, so they are compared by their text.
public struct ReplicaID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The lowercase UUID text.
    public let rawValue: String

    /// Parses a UUID (either case); `nil` when `text` is not one.
    public init?(_ text: String) {
        // The canonical 8-4-4-4-12 form is checked by hand: replaying a journal reads one or
        // more ids per entry, and Foundation's parser goes through sscanf and sprintf.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        for (offset, byte) in text.utf8.enumerated() {
            guard offset < 36 else { return nil }
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                bytes.append(byte)
            } else if byte.isASCIIDigit || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) {
                bytes.append(byte)
            } else if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F") {
                bytes.append(byte + 32)
            } else {
                return nil
            }
        }
        guard bytes.count == 36 else { return nil }
        rawValue = String(decoding: bytes, as: UTF8.self)
    }

    /// A new random replica id.
    public static func generate() -> ReplicaID {
        ReplicaID(uncheckedLowercase: UUID().uuidString.lowercased())
    }

    init(uncheckedLowercase rawValue: String) { self.rawValue = rawValue }

    /// The first eight characters, as logs show a replica.
    public var short: String { String(rawValue.prefix(8)) }

    public var description: String { rawValue }

    public static func < (lhs: ReplicaID, rhs: ReplicaID) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }
}
