/// What `verify` checked and found.
///
/// ```swift
/// let report = try StoreVerifier(path: "./data").verify()
/// if report.isClean { print("ok") } else { report.findings.forEach { print($0) } }
/// ```
public struct VerificationReport: Sendable, Hashable {
    /// The problems found, journal first (in file order), then the index, then files by path.
    public var findings: [VerificationFinding] = []
    /// Journal lines read.
    public var entryCount = 0
    /// Segment files read.
    public var segmentCount = 0
    /// Live records in the journal's replay.
    public var recordCount = 0
    /// Whether the index was compared with the replay.
    public var checkedIndex = false
    /// Whether record files were compared with the replay (skipped when the journal is damaged,
    /// since its replay is then not to be trusted).
    public var checkedRecords = false

    /// An empty report: clean, nothing checked yet.
    public init() {}

    /// Whether nothing was found.
    /// The snapshots the store joined from: its journal starts there, and history before
    /// it is not held here (the hub's `verify` checks the snapshot against its segments).
    public var snapshotJoins: SnapshotJoins?
    /// Why `.ferry/base.json` could not be read, when it could not.
    public var snapshotJoinsProblem: String?

    /// A compacted journal's archive (`ferry compact`): where it is, and whether it was there
    /// to be checked with the live journal as one chain.
    public struct Archive: Sendable, Hashable {
        public var firstLiveSequence: UInt64
        /// The archive folders, as `journal/start.json` records them.
        public var folders: [String]
        /// Whether every folder was there (else the live journal was checked alone).
        public var isPresent: Bool
        public var archivedEntries: Int
        public var keptEntries: Int

        public var jsonValue: JSONValue {
            [
                "firstLiveSequence": .integer(Int64(clamping: firstLiveSequence)), "folders": .array(folders.map { .string($0) }),
                "present": .bool(isPresent), "archivedEntries": .integer(Int64(archivedEntries)), "keptEntries": .integer(Int64(keptEntries)),
            ]
        }
    }
    /// The archive, when the journal was compacted.
    public var archive: Archive?
    public var isClean: Bool { findings.isEmpty && snapshotJoinsProblem == nil }
    /// For each replica that never signed its work (made before changes were signed), how
    /// many of its changes the journal holds: their author cannot be proven, only their chain.
    public var unsignedChanges: [ReplicaID: Int] = [:]

    /// Whether a finding shows the journal was tampered with.
    public var hasTampering: Bool { findings.contains { $0.category == .tampering } }

    /// The number of findings in each category that has any.
    public var counts: [(category: VerificationFinding.Category, count: Int)] {
        VerificationFinding.Category.allCases.compactMap { category in
            let count = findings.filter { $0.category == category }.count
            return count > 0 ? (category, count) : nil
        }
    }

    /// The report as one JSON object: `clean`, counts, and `findings` (see
    /// ``VerificationFinding/jsonValue``).
    public var jsonValue: JSONValue {
        var categories: [String: JSONValue] = [:]
        for (category, count) in counts { categories[category.rawValue] = .integer(Int64(count)) }
        return [
            "clean": .bool(isClean), "entries": .integer(Int64(entryCount)), "segments": .integer(Int64(segmentCount)),
            "records": .integer(Int64(recordCount)), "checkedIndex": .bool(checkedIndex),
            "checkedRecords": .bool(checkedRecords), "categories": .object(categories),
            "findings": .array(findings.map(\.jsonValue)), "base": snapshotJoins?.jsonValue ?? .null,
            "baseProblem": snapshotJoinsProblem.map { .string($0) } ?? .null, "archive": archive?.jsonValue ?? .null,
            "unsigned": .object(Dictionary(uniqueKeysWithValues: unsignedChanges.map { ($0.key.rawValue, JSONValue.integer(Int64($0.value))) })),
        ]
    }
}
