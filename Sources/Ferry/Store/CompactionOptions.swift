/// What `ferry compact` does (see ``Store/compact(_:)``).
///
/// ```swift
/// var options = CompactionOptions()
/// options.keep = 30 * 86_400_000          // keep the last 30 days in journal/
/// options.archiveFolder = "/mnt/cold/notes-archive"
/// let report = try store.compact(options)
/// ```
public struct CompactionOptions: Sendable {
    /// The default horizon: 90 days.
    public static let defaultKeep: UInt64 = 90 * 86_400_000

    /// History younger than this many milliseconds stays in `journal/`.
    public var keep: UInt64 = CompactionOptions.defaultKeep
    /// Where archived segments go: `nil` for the store's `archive/` folder; a relative path is
    /// taken from the store's folder.
    public var archiveFolder: String?
    /// Reports what would be archived and changes nothing.
    public var dryRun = false

    /// The steps of a compaction, in order, for tests that stop one half way.
    enum Step: Int, Comparable, CaseIterable, Sendable {
        case archiveSegments, archiveManifest, keptEntries, journalStart, deleteSegments
        static func < (lhs: Step, rhs: Step) -> Bool { lhs.rawValue < rhs.rawValue }
    }
    /// Tests only: stop (as a crash would) right after this step.
    var stopAfter: Step?

    public init(keep: UInt64 = CompactionOptions.defaultKeep, archiveFolder: String? = nil, dryRun: Bool = false) {
        self.keep = keep
        self.archiveFolder = archiveFolder
        self.dryRun = dryRun
    }

    /// Reads a duration such as `90d`, `12h`, `30m`, `45s`, `2w` or `0`, in milliseconds;
    /// `nil` when it is not one.
    public static func parseDuration(_ text: String) -> UInt64? {
        if text == "0" { return 0 }
        guard let unit = text.last, let number = UInt64(text.dropLast()), !text.dropLast().isEmpty else { return nil }
        let scale: UInt64
        switch unit {
        case "s": scale = 1_000
        case "m": scale = 60_000
        case "h": scale = 3_600_000
        case "d": scale = 86_400_000
        case "w": scale = 7 * 86_400_000
        default: return nil
        }
        let (product, overflow) = number.multipliedReportingOverflow(by: scale)
        return overflow ? nil : product
    }
}

/// What a compaction did (or, for a dry run, would do).
public struct CompactionReport: Sendable, Hashable {
    /// History older than this (milliseconds since 1970) could be archived.
    public var horizon: UInt64
    /// The archive folder, as the store records it, and as a path from here.
    public var archive: String
    public var archivePath: String
    /// Segments moved to the archive by this run, and the entries and bytes they hold.
    public var archivedSegments: [String] = []
    public var archivedEntries = 0
    public var archivedBytes: Int64 = 0
    /// The first live sequence afterwards (1 when nothing was ever archived).
    public var firstLiveSequence: UInt64
    /// Entries kept because they are records' current versions (tombstones included).
    public var keptEntries = 0
    /// Tombstones dropped: every known peer had seen the deletion.
    public var droppedTombstones = 0
    /// Segments left in `journal/`.
    public var liveSegments = 0
    /// Leftovers of an interrupted compaction that this run removed.
    public var finishedLeftovers = 0
    public var dryRun = false

    /// The report as JSON (`ferry compact --json`).
    public var jsonValue: JSONValue {
        [
            "horizon": .string(ISO8601Milliseconds.format(milliseconds: horizon)), "archive": .string(archive),
            "archivedSegments": .array(archivedSegments.map { .string($0) }), "archivedEntries": .integer(Int64(archivedEntries)),
            "archivedBytes": .integer(archivedBytes), "firstLiveSequence": .integer(Int64(clamping: firstLiveSequence)),
            "keptEntries": .integer(Int64(keptEntries)), "droppedTombstones": .integer(Int64(droppedTombstones)),
            "liveSegments": .integer(Int64(liveSegments)), "finishedLeftovers": .integer(Int64(finishedLeftovers)),
            "dryRun": .bool(dryRun),
        ]
    }
}
