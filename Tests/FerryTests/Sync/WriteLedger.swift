import Ferry
import FerryTestSupport

/// Every write made during a randomized test, so that at the end each can be accounted for:
/// still a current version of its record (the live winner, a listed conflict loser, or a
/// sibling with the same content as one of those), or superseded in the journal by a version
/// that descends from it. Nothing may simply vanish.
struct WriteLedger {
    /// One acknowledged write.
    struct Write {
        var identity: ChangeIdentity
        var key: RecordKey
        var version: VersionVector
        var isDelete: Bool
    }

    private(set) var writes: [Write] = []

    /// Records the entries a write returned.
    mutating func record(_ entries: [JournalEntry]) {
        for entry in entries {
            writes.append(
                Write(identity: entry.change.identity, key: entry.change.key, version: entry.change.version, isDelete: entry.change.isDelete))
        }
    }

    /// Records one write known by identity and version.
    mutating func record(_ write: Write) { writes.append(write) }

    /// The writes not accounted for in `store`, one line each.
    ///
    /// A store that joined from a snapshot holds the versions that were current at the join,
    /// not the history before them: a write its base frontier covers and that is missing from
    /// its journal is accounted for when a version it holds descends from it.
    func unaccounted(in store: Store) throws -> [String] {
        let entries = try store.journalEntries()
        let frontier = try store.snapshotJoins()?.frontier.knowledge ?? VersionVector()
        var byKey: [RecordKey: [JournalEntry]] = [:]
        var identities = Set<ChangeIdentity>()
        for entry in entries {
            byKey[entry.change.key, default: []].append(entry)
            identities.insert(entry.change.identity)
        }
        var conflicts: [RecordKey: ConflictSummary] = [:]
        for conflict in try store.conflicts() { conflicts[conflict.key] = conflict }
        var problems: [String] = []
        for write in writes {
            guard identities.contains(write.identity) else {
                let covered = frontier.counters[write.identity.origin].map { $0 >= write.identity.counter } ?? false
                let descendant = byKey[write.key, default: []].contains { $0.change.version.compare(to: write.version) == .after }
                if covered && descendant { continue }
                problems.append("\(write.identity) (\(write.key)) is not in the journal")
                continue
            }
            guard let state = try store.state(of: write.key) else {
                problems.append("\(write.identity): \(write.key) has no state")
                continue
            }
            if let current = state.versions.first(where: { $0.identity == write.identity }) {
                let listed = conflicts[write.key]?.losers.map(\.identity) ?? []
                let shown =
                    current.identity == state.winner.identity || current.hasSameContent(as: state.winner)
                    || state.versions.contains { listed.contains($0.identity) && $0.hasSameContent(as: current) }
                if !shown { problems.append("\(write.identity) is a current version of \(write.key) but neither live nor a listed loser") }
                continue
            }
            let superseded = byKey[write.key, default: []].contains { $0.change.version.compare(to: write.version) == .after }
            if !superseded {
                problems.append("\(write.identity) on \(write.key) is neither current nor superseded by a descendant")
            }
        }
        return problems
    }
}
