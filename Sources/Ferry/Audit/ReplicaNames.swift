/// The short names of replicas a store knows, so people read `laptop` instead of a UUID.
///
/// A store knows its own name (from `ferry init --name`) and the names of the peers it synced
/// with directly (kept in their checkpoints). Other replicas show as the first eight
/// characters of their id.
///
/// ```swift
/// let names = store.replicaNames()
/// names.label(for: entry.change.origin)          // "laptop" or "5b2c91e0"
/// let origin = try names.resolve("laptop", among: store.knowledge.counters.keys)
/// ```
public struct ReplicaNames: Sendable, Hashable {
    /// Replica → name, for the replicas that have one.
    public private(set) var names: [ReplicaID: String]

    /// Names by replica; empty names are dropped.
    public init(_ names: [ReplicaID: String] = [:]) {
        self.names = names.filter { !$0.value.isEmpty }
    }

    /// The replica's name, or the first eight characters of its id.
    public func label(for replica: ReplicaID) -> String {
        names[replica] ?? replica.short
    }

    /// Finds the replica meant by `text`: a name, a full id, or a prefix of an id (at least four
    /// characters).
    ///
    /// - Parameters:
    ///   - text: What the user typed.
    ///   - known: Every replica the store has changes from (its knowledge vector's keys).
    /// - Throws: ``AuditError/unknownReplica(_:)`` or ``AuditError/ambiguousReplica(_:candidates:)``.
    public func resolve(_ text: String, among known: some Sequence<ReplicaID>) throws(AuditError) -> ReplicaID {
        var candidates = Set(names.filter { $0.value == text }.map(\.key))
        if candidates.isEmpty, let exact = ReplicaID(text) { candidates.insert(exact) }
        if candidates.isEmpty, text.utf8.count >= 4 {
            let prefix = text.lowercased()
            let all = Set(known).union(names.keys)
            candidates = all.filter { $0.rawValue.hasPrefix(prefix) }
        }
        guard let first = candidates.first else { throw .unknownReplica(text) }
        guard candidates.count == 1 else {
            throw .ambiguousReplica(text, candidates: candidates.sorted().map { label(for: $0) + " (\($0.rawValue))" })
        }
        return first
    }
}

extension Store {
    /// The names this store knows: its own and those of the peers it synced with.
    public func replicaNames() -> ReplicaNames {
        var names: [ReplicaID: String] = [:]
        for checkpoint in checkpoints() {
            if let name = checkpoint.peerName { names[checkpoint.peer] = name }
        }
        if let own = manifest.name { names[replicaID] = own }
        return ReplicaNames(names)
    }
}
