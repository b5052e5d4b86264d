/// The short names of replicas a store knows, so people read `laptop` instead of a UUID.
///
/// A store knows its own name (from `ferry init --name`, else the host name), the names of the
/// peers it synced with directly (kept in their checkpoints), and the names those peers passed
/// on (``ReplicaNameBook``): names travel with the changes, through folders, hubs and servers.
/// Other replicas show as the first eight characters of their id. Two replicas that go by the
/// same name are never merged: each shows with its id, `laptop (f3a371b1)`.
///
/// ```swift
/// let names = store.replicaNames()
/// names.label(for: entry.change.origin)          // "laptop", "5b2c91e0" or "laptop (f3a371b1)"
/// let origin = try names.resolve("laptop", among: store.knowledge.counters.keys)
/// ```
public struct ReplicaNames: Sendable, Hashable {
    /// Replica → name, for the replicas that have one.
    public private(set) var names: [ReplicaID: String]
    /// The names more than one replica goes by.
    private let sharedNames: Set<String>

    /// Names by replica; empty names are dropped.
    public init(_ names: [ReplicaID: String] = [:]) {
        let names = names.filter { !$0.value.isEmpty }
        self.names = names
        var seen = Set<String>()
        var shared = Set<String>()
        for name in names.values where !seen.insert(name).inserted { shared.insert(name) }
        sharedNames = shared
    }

    /// The replica's name, or the first eight characters of its id; a name that another
    /// replica goes by too comes with the id: `laptop (f3a371b1)`.
    public func label(for replica: ReplicaID) -> String {
        guard let name = names[replica] else { return replica.short }
        return sharedNames.contains(name) ? "\(name) (\(replica.short))" : name
    }

    /// The longest label, for aligned columns (at least the 8 characters of an id).
    public var widestLabel: Int {
        names.keys.map { label(for: $0).count }.max().map { max(8, $0) } ?? 8
    }

    /// Finds the replica meant by `text`: a name, a label (`laptop (f3a371b1)`), a full id,
    /// or a prefix of an id (at least four characters).
    ///
    /// - Parameters:
    ///   - text: What the user typed.
    ///   - known: Every replica the store has changes from (its knowledge vector's keys).
    /// - Throws: ``AuditError/unknownReplica(_:)`` or ``AuditError/ambiguousReplica(_:candidates:)``.
    public func resolve(_ text: String, among known: some Sequence<ReplicaID>) throws(AuditError) -> ReplicaID {
        var candidates = Set(names.filter { $0.value == text || label(for: $0.key) == text }.map(\.key))
        if candidates.isEmpty, let exact = ReplicaID(text) { candidates.insert(exact) }
        if candidates.isEmpty, text.utf8.count >= 4 {
            let prefix = text.lowercased()
            let all = Set(known).union(names.keys)
            candidates = all.filter { $0.rawValue.hasPrefix(prefix) }
        }
        guard let first = candidates.first else { throw .unknownReplica(text) }
        guard candidates.count == 1 else {
            throw .ambiguousReplica(text, candidates: candidates.sorted().map { (names[$0] ?? $0.short) + " (\($0.rawValue))" })
        }
        return first
    }

    /// The name a store made without `--name` goes by: the host's name, its first label,
    /// lower-cased, with only letters, digits, `-` and `_` kept (at most 64); `nil` when nothing
    /// is left.
    ///
    /// ```swift
    /// ReplicaNames.defaultName(forHost: "Alices-MacBook.local")  // "alices-macbook"
    /// ```
    public static func defaultName(forHost host: String) -> String? {
        let label = host.split(separator: ".", omittingEmptySubsequences: true).first ?? ""
        let kept = label.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        let name = String(kept.prefix(64))
        return name.isEmpty ? nil : name
    }
}

extension Store {
    /// The names this store knows: its own, those of the peers it synced with, and those the
    /// peers passed on. What a replica says of itself wins over what others relay of it.
    public func replicaNames() -> ReplicaNames {
        var names = (try? ReplicaNameBook.load(from: layout))?.names ?? [:]
        for checkpoint in checkpoints() {
            if let name = checkpoint.peerName { names[checkpoint.peer] = name }
        }
        if let own = manifest.name { names[replicaID] = own } else { names[replicaID] = nil }
        return ReplicaNames(names)
    }
}
