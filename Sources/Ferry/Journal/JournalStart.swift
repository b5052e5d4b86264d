/// Where a compacted journal starts: `journal/start.json`, written by `ferry compact` (see
/// ``Store/compact(at:options:)``).
///
/// Compaction moves whole segments at the start of the journal into an archive and keeps, in
/// `journal/kept-<first>/`, the entries the store still needs: every record's current versions
/// (tombstones included) whose entries were archived, as the very same lines. The live journal
/// then starts at ``first``, chained onto ``previous``, the hash of the last archived entry.
///
/// ```json
/// {"archives":[{"first":1,"last":8192,"path":"archive"}],"compacted":"2026-11-27T09:00:00.000Z",
///  "ferry-journal-start":1,"first":8193,"frontier":{"<origin>":[8100,"<digest>"]},
///  "kept":{"entries":912,"folder":"kept-00000000000000008193"},"previous":"<hash of seq 8192>"}
/// ```
/// `frontier` holds, for each origin, the highest counter among the archived changes and that
/// change's digest: the store holds every one of them (their effect is in the records), so
/// opening the store raises its knowledge to it, and a peer that lacks one of them is served
/// from the archive or, when it is not there, from a snapshot of the state.
public struct JournalStart: Sendable, Hashable {
    /// The format this Ferry writes.
    public static let format: Int64 = 1
    /// The file's name inside `journal/`.
    public static let fileName = "start.json"

    /// One archive folder and the sequences it holds.
    public struct Archive: Sendable, Hashable {
        /// The folder: relative to the store when inside it (`archive`), else absolute.
        public var path: String
        public var first: UInt64
        public var last: UInt64

        public init(path: String, first: UInt64, last: UInt64) {
            self.path = path
            self.first = first
            self.last = last
        }
    }

    /// The first live sequence: the journal's segments start here.
    public var first: UInt64
    /// The hash of the entry at `first - 1`, the last archived one.
    public var previous: SHA256Digest
    /// The folder under `journal/` holding the kept entries, and how many it holds.
    public var keptFolder: String
    public var keptEntries: Int
    /// Every archived change is held up to this frontier.
    public var frontier: ReplicaFrontier
    /// Where the archived segments went, oldest first.
    public var archives: [Archive]
    /// When the last compaction ran, milliseconds since 1970.
    public var compacted: UInt64

    public init(
        first: UInt64, previous: SHA256Digest, keptFolder: String, keptEntries: Int, frontier: ReplicaFrontier, archives: [Archive],
        compacted: UInt64
    ) {
        self.first = first
        self.previous = previous
        self.keptFolder = keptFolder
        self.keptEntries = keptEntries
        self.frontier = frontier
        self.archives = archives
        self.compacted = compacted
    }

    /// The kept folder's name for a journal starting at `first`.
    static func keptFolderName(first: UInt64) -> String {
        "kept-" + String(JournalSegment(firstSequence: first).name.dropLast(6))
    }

    /// The absolute path of an archive folder recorded as `path` in the store at `root`.
    public static func resolve(_ path: String, root: String) -> String {
        path.hasPrefix("/") ? path : root + "/" + path
    }

    // MARK: JSON

    public var jsonValue: JSONValue {
        return [
            "ferry-journal-start": .integer(Self.format), "first": .integer(Int64(clamping: first)), "previous": .string(previous.hex),
            "kept": ["folder": .string(keptFolder), "entries": .integer(Int64(keptEntries))],
            "frontier": frontier.jsonValue,
            "archives": .array(
                archives.map {
                    ["path": .string($0.path), "first": .integer(Int64(clamping: $0.first)), "last": .integer(Int64(clamping: $0.last))]
                }),
            "compacted": .string(ISO8601Milliseconds.format(milliseconds: compacted)),
        ]
    }

    /// Reads the file's content.
    /// - Throws: a one-line reason when it is not a journal start this Ferry reads.
    public init(json value: JSONValue) throws(JournalError) {
        func bad(_ reason: String) -> JournalError { .damagedStart(reason: reason) }
        guard let format = value["ferry-journal-start"]?.integerValue else { throw bad("no \"ferry-journal-start\" format number") }
        guard format == Self.format else { throw bad("format \(format); this ferry reads format \(Self.format)") }
        guard let first = value["first"]?.integerValue, first >= 1 else { throw bad("no first sequence") }
        guard let previousText = value["previous"]?.stringValue, let previous = SHA256Digest(hex: previousText) else {
            throw bad("no hash of the last archived entry")
        }
        guard let folder = value["kept"]?["folder"]?.stringValue, !folder.contains("/"), folder.hasPrefix("kept-"),
            let entries = value["kept"]?["entries"]?.integerValue, entries >= 0
        else { throw bad("no kept entries folder") }
        let frontier: ReplicaFrontier
        do { frontier = try ReplicaFrontier(json: value["frontier"]?.objectValue ?? [:]) } catch { throw bad(error.reason) }
        var archives: [Archive] = []
        for item in value["archives"]?.arrayValue ?? [] {
            guard let path = item["path"]?.stringValue, !path.isEmpty, let from = item["first"]?.integerValue, from >= 1,
                let to = item["last"]?.integerValue, to >= from
            else { throw bad("an archive is not described correctly") }
            archives.append(Archive(path: path, first: UInt64(from), last: UInt64(to)))
        }
        guard let compactedText = value["compacted"]?.stringValue, let compacted = ISO8601Milliseconds.parse(compactedText),
            compacted >= 0
        else { throw bad("no compaction time") }
        self.init(
            first: UInt64(first), previous: previous, keptFolder: folder, keptEntries: Int(entries),
            frontier: frontier, archives: archives,
            compacted: UInt64(compacted))
    }

    /// Reads `journal/start.json` in `directory`; `nil` when the journal was never compacted.
    static func read(directory: String) throws(JournalError) -> JournalStart? {
        let path = directory + "/" + fileName
        let bytes: [UInt8]
        do {
            guard FileSystem.exists(path) else { return nil }
            bytes = try FileSystem.readFile(path, limit: 16 << 20)
        } catch { throw .io(error) }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: .init(maximumDepth: 8, maximumByteCount: 16 << 20)) } catch {
            throw .damagedStart(reason: error.description)
        }
        return try JournalStart(json: value)
    }
}
