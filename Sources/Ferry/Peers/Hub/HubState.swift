/// Every record's current versions, built from changes taken in any order: a version is kept
/// until one that descends from it arrives, and concurrent versions are all kept (a conflict,
/// as in a store). The same changes give the same state whatever their order, which is what
/// lets `hub compact` fold segments written by many replicas into one snapshot.
struct HubState {
    /// For each record, its current versions (the changes that made them).
    private(set) var records: [RecordKey: [Change]] = [:]

    /// Takes one change: dropped when the record has it or a later version, otherwise it
    /// replaces the versions it descends from.
    mutating func incorporate(_ change: Change) {
        var versions = records[change.key] ?? []
        for existing in versions where existing.version.dominates(change.version) { return }
        versions.removeAll { change.version.dominates($0.version) }
        versions.append(change)
        records[change.key] = versions
    }

    /// Whether the record has `change` or a version that descends from it.
    func reflects(_ change: Change) -> Bool {
        records[change.key]?.contains { $0.version.dominates(change.version) } ?? false
    }

    /// Records with at least one version that is not a delete.
    var liveCount: Int { records.values.filter { $0.contains { !$0.isDelete } }.count }

    /// Every version, sorted by record, then by origin and counter: the snapshot's order.
    var sortedChanges: [Change] {
        records.keys.sorted().flatMap { key in (records[key] ?? []).sorted { $0.identity < $1.identity } }
    }
}
