import Foundation

/// The identity of one replica of a store: a UUID made by `init`, in lowercase text form.
///
/// Replica ids break ties between equal clock stamps, so they are compared by their text.
public struct ReplicaID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The lowercase UUID text.
    public let rawValue: String

    /// Parses a UUID (either case); `nil` when `text` is not one.
    public init?(_ text: String) {
        guard let uuid = UUID(uuidString: text) else { return nil }
        rawValue = uuid.uuidString.lowercased()
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
