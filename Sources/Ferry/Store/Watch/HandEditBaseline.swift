/// What the last `status` or `commit` of a store found, and at which publish of its
/// ``HandEditMonitor`` (`.ferry/watch/baseline.json`): the point the next one starts from.
///
/// ```json
/// {"format": 1, "generation": "9f2c…", "sequence": 17, "unsettled": [["Note", "n7"]]}
/// ```
///
/// At publish ``sequence`` of ``generation`` every record file matched the index except the
/// ``unsettled`` ones (hand edits not journaled, files that cannot be read as records). So the
/// files that may differ now are those, and those the monitor saw touched after ``sequence``.
/// Written only when the answer is complete in those terms: a scan that found a problem no
/// record key names (a stray file) writes none.
struct HandEditBaseline: Sendable, Equatable {
    static let currentFormat: Int64 = 1

    var generation: HandEditMonitorState.Generation
    var sequence: UInt64
    var unsettled: Set<RecordKey>

    var jsonValue: JSONValue {
        .object([
            "format": .integer(Self.currentFormat), "generation": .string(generation.rawValue), "sequence": .integer(Int64(sequence)),
            "unsettled": .array(unsettled.sorted().map { .array([.string($0.entity.rawValue), .string($0.id.rawValue)]) }),
        ])
    }

    init(generation: HandEditMonitorState.Generation, sequence: UInt64, unsettled: Set<RecordKey>) {
        self.generation = generation
        self.sequence = sequence
        self.unsettled = unsettled
    }

    /// Reads a baseline; `nil` for anything this build does not write exactly so.
    init?(json: JSONValue) {
        guard let fields = json.objectValue, fields["format"]?.integerValue == Self.currentFormat,
            let generation = fields["generation"]?.stringValue,
            let sequence = fields["sequence"]?.integerValue.flatMap({ UInt64(exactly: $0) }),
            let unsettled = fields["unsettled"]?.arrayValue
        else { return nil }
        self.generation = HandEditMonitorState.Generation(rawValue: generation)
        self.sequence = sequence
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
