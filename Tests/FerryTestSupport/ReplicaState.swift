import Ferry

/// What a replica shows, reduced to what must be identical on converged replicas: every live
/// record's content hash, and every conflict's winner and losers.
///
/// ```swift
/// #expect(try ReplicaState(a) == ReplicaState(b))
/// ```
public struct ReplicaState: Equatable, CustomStringConvertible {
    /// One conflicted record: the winner's identity and the listed losers' identities.
    public struct Conflict: Equatable {
        public var winner: ChangeIdentity
        public var losers: [ChangeIdentity]
    }

    /// Live records: key → SHA-256 (hex) of the document's canonical bytes.
    public var records: [RecordKey: String] = [:]
    /// Conflicted records.
    public var conflicts: [RecordKey: Conflict] = [:]

    /// Reads a store's live records (through `get`, so what the API returns) and conflicts.
    public init(_ store: Store) throws {
        for (entity, _) in try store.entities() {
            for (id, document) in try store.records(of: entity) {
                records[RecordKey(entity: entity, id: id)] = SHA256.hash(document.canonicalBytes()).hex
            }
        }
        for conflict in try store.conflicts() {
            conflicts[conflict.key] = Conflict(winner: conflict.winner.identity, losers: conflict.losers.map(\.identity))
        }
    }

    /// The differences from `other`, one line each, for failure messages.
    public func differences(from other: ReplicaState) -> [String] {
        var lines: [String] = []
        for key in Set(records.keys).union(other.records.keys).sorted() where records[key] != other.records[key] {
            lines.append("\(key): \(records[key]?.prefix(12) ?? "absent") vs \(other.records[key]?.prefix(12) ?? "absent")")
        }
        for key in Set(conflicts.keys).union(other.conflicts.keys).sorted() where conflicts[key] != other.conflicts[key] {
            lines.append("conflict \(key): \(conflicts[key].map { "\($0)" } ?? "none") vs \(other.conflicts[key].map { "\($0)" } ?? "none")")
        }
        return lines
    }

    public var description: String { "\(records.count) records, \(conflicts.count) conflicts" }
}
