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
        let parsed = text.utf8.withContiguousStorageIfAvailable(Self.canonical) ?? Self.canonical(Array(text.utf8))
        guard let parsed else { return nil }
        rawValue = parsed
    }

    /// The lowercase form of a UUID in 8-4-4-4-12 form (either case), or `nil`.
    private static func canonical(_ bytes: some Collection<UInt8>) -> String? {
        guard bytes.count == 36 else { return nil }
        var lowered: [UInt8] = []
        lowered.reserveCapacity(36)
        for (offset, byte) in bytes.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                lowered.append(byte)
            } else if byte.isASCIIDigit || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) {
                lowered.append(byte)
            } else if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F") {
                lowered.append(byte + 32)
            } else {
                return nil
            }
        }
        return String(decoding: lowered, as: UTF8.self)
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
