/// What the last `status` or `commit` of a store found, and at which publish of its
/// ``HandEditMonitor`` (`.ferry/watch/baseline.json`): the point the next one starts from.
///
/// ```json
/// {"format": 1, "generation": "9f2c…", "sequence": 17, "journal": [2042, "5e0a…"], "unsettled": [["Note", "n7"]]}
/// ```
///
/// At publish ``sequence`` of ``generation`` every record file matched the index except the
/// ``unsettled`` ones (hand edits not journaled, files that cannot be read as records). So the
/// files that may differ now are those, and those the monitor saw touched after ``sequence``
/// (provided the journal has not gone back: ``journal`` is its head then, and a journal
/// restored from an older copy, which no file event tells, makes the next consumer scan).
/// Written only when the answer is complete in those terms: a scan that found a problem no
/// record key names (a stray file) writes none.
struct HandEditBaseline: Sendable, Equatable {
    static let currentFormat: Int64 = 1

    var generation: HandEditMonitorState.Generation
    var sequence: UInt64
    /// The journal's head (sequence and hash, hex) when the baseline was written.
    var journal: Journal
    var unsettled: Set<RecordKey>

    struct Journal: Sendable, Equatable {
        var sequence: UInt64
        var hash: String

        /// Whether a store whose journal head is `current` may have grown from this head (a
        /// head behind it, or the same position with another hash, has not).
        func mayLeadTo(_ current: Journal) -> Bool {
            current.sequence > sequence || current == self
        }
    }

    var jsonValue: JSONValue {
        .object([
            "format": .integer(Self.currentFormat), "generation": .string(generation.rawValue), "sequence": .integer(Int64(sequence)),
            "journal": .array([.integer(Int64(journal.sequence)), .string(journal.hash)]),
            "unsettled": .array(unsettled.sorted().map { .array([.string($0.entity.rawValue), .string($0.id.rawValue)]) }),
        ])
    }

    init(generation: HandEditMonitorState.Generation, sequence: UInt64, journal: Journal, unsettled: Set<RecordKey>) {
        self.generation = generation
        self.sequence = sequence
        self.journal = journal
        self.unsettled = unsettled
    }

    /// Reads a baseline; `nil` for anything this build does not write exactly so.
    init?(json: JSONValue) {
        guard let fields = json.objectValue, fields["format"]?.integerValue == Self.currentFormat,
            let generation = fields["generation"]?.stringValue,
            let sequence = fields["sequence"]?.integerValue.flatMap({ UInt64(exactly: $0) }),
            let journal = fields["journal"]?.arrayValue, journal.count == 2,
            let journalSequence = journal[0].integerValue.flatMap({ UInt64(exactly: $0) }), let journalHash = journal[1].stringValue,
            let unsettled = fields["unsettled"]?.arrayValue
        else { return nil }
        self.generation = HandEditMonitorState.Generation(rawValue: generation)
        self.sequence = sequence
        self.journal = Journal(sequence: journalSequence, hash: journalHash)
        self.unsettled = []
        for entry in unsettled {
            guard let parts = entry.arrayValue, parts.count == 2, let key = RecordKey(jsonParts: parts[0], parts[1]) else { return nil }
            self.unsettled.insert(key)
        }
    }

    /// The baseline at `path`; `nil` when there is none or it cannot be read (the caller scans).
    static func read(at path: String) -> HandEditBaseline? {
        guard let bytes = try? FileSystem.readFile(path, limit: 64 << 20), let json = try? JSONParser.parse(bytes) else { return nil }
        return HandEditBaseline(json: json)
    }
}
