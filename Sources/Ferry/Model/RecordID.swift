import Foundation

/// The identifier of a record within its entity: any non-empty string of at most 256 UTF-8 bytes.
///
/// Two ids are equal when their UTF-8 bytes are equal (no Unicode normalization), so ids that
/// differ only in letter case, or in composed versus decomposed accents, are different records.
///
/// ```swift
/// let id = try RecordID("42")
/// let fresh = RecordID.generate()   // a new UUID, for records created offline
/// ```
public struct RecordID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The id as given.
    public let rawValue: String

    /// The largest id accepted, in UTF-8 bytes.
    public static let maximumByteCount = 256

    /// Validates and wraps an id.
    /// - Throws: ``ValidationError/invalidRecordID(_:reason:)`` for an empty or oversized id.
    public init(_ rawValue: String) throws(ValidationError) {
        let count = rawValue.utf8.count
        guard count > 0 else { throw .invalidRecordID(rawValue, reason: "it is empty") }
        guard count <= Self.maximumByteCount else {
            throw .invalidRecordID(
                String(rawValue.prefix(40)) + "…", reason: "it is \(count) bytes; at most \(Self.maximumByteCount) are allowed")
        }
        self.rawValue = rawValue
    }

    /// A new random id (a lowercase UUID), as clients creating records offline need.
    public static func generate() -> RecordID {
        RecordID(unchecked: UUID().uuidString.lowercased())
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// Byte equality, not String's Unicode equivalence: two ids are one record only when
    /// they are the same bytes (as their file names are).
    public static func == (lhs: RecordID, rhs: RecordID) -> Bool {
        let (left, right) = (lhs.rawValue.utf8, rhs.rawValue.utf8)
        guard left.count == right.count else { return false }
        let equal = left.withContiguousStorageIfAvailable { a in
            right.withContiguousStorageIfAvailable { b in a.elementsEqual(b) }
        }
        return (equal ?? nil) ?? left.elementsEqual(right)
    }

    public func hash(into hasher: inout Hasher) {
        // One call for all bytes: indexes hash millions of ids.
        let hashed: Void? = rawValue.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { Array(rawValue.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    public static func < (lhs: RecordID, rhs: RecordID) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }
}

/// A record's full address: its entity and its id. The same id in two entities is two records.
public struct RecordKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let entity: EntityName
    public let id: RecordID
    /// The hash of entity and id, worked out once (see ``PrecomputedHash``).
    private let digest: Int

    public init(entity: EntityName, id: RecordID) {
        self.entity = entity
        self.id = id
        digest = PrecomputedHash.digest { hasher in
            entity.hash(into: &hasher)
            id.hash(into: &hasher)
        }
    }

    /// The same entity and id. Keys with different digests differ, so most unequal keys are
    /// told apart by one comparison.
    public static func == (lhs: RecordKey, rhs: RecordKey) -> Bool {
        lhs.digest == rhs.digest && lhs.id == rhs.id && lhs.entity == rhs.entity
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(digest)
    }

    /// The digest mixed with a table's seed: no `Hasher` per lookup.
    public func _rawHashValue(seed: Int) -> Int {
        PrecomputedHash.rawHashValue(digest, seed: seed)
    }

    /// `Entity/id`, as the CLI prints it.
    public var description: String { "\(entity.rawValue)/\(id.rawValue)" }

    public static func < (lhs: RecordKey, rhs: RecordKey) -> Bool {
        lhs.entity == rhs.entity ? lhs.id < rhs.id : lhs.entity < rhs.entity
    }
}
