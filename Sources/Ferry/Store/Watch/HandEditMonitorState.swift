/// What a running ``HandEditMonitor`` publishes in `.ferry/watch/state.json`: who it is, and
/// which record files it saw touched, each at the publish that first carried it.
///
/// ```json
/// {"format": 1, "pid": 4242, "generation": "9f2c…", "sequence": 17, "journalChangedAt": 16,
///  "otherFilesChangedAt": 0, "cookies": ["5d1e….9f2c….12"],
///  "touched": [["Note", "n1", 15], ["Note", "n7", 17]]}
/// ```
///
/// A reader asks "what changed after publish S of generation G": if ``generation`` is G, it is
/// every key of ``touched`` whose sequence is above S (a consumer that has acknowledged S lets
/// the monitor forget the keys at or below it); if not, nobody can say, and the reader scans.
/// A new generation starts with each monitor, and again when events were lost or the set of
/// keys grew past its bound (``restartReason`` says which).
struct HandEditMonitorState: Sendable, Equatable {
    /// A random token, new with each start of a monitor and each time it lost track.
    struct Generation: Sendable, Hashable, CustomStringConvertible {
        let rawValue: String

        /// A new random generation.
        static func random() -> Generation {
            Generation(rawValue: String(UInt64.random(in: 0...UInt64.max), radix: 16))
        }

        var description: String { rawValue }
    }

    static let currentFormat: Int64 = 1

    /// The monitor's process.
    var pid: Int32
    var generation: Generation
    /// Grows by one with each publish within a generation (0: nothing published yet).
    var sequence: UInt64 = 0
    /// The last publish that saw the journal written.
    var journalChangedAt: UInt64 = 0
    /// The last publish that saw a file under `records/` that is no record file (a consumer
    /// that has not scanned since must scan: such files are problems only a scan lists).
    var otherFilesChangedAt: UInt64 = 0
    /// The last cookies seen, newest last (a consumer waits for its own; see ``HandEditMonitor``).
    var cookies: [String] = []
    /// The record files touched since the consumer's last acknowledgement, each with the
    /// publish that last saw it touched.
    var touched: [RecordKey: UInt64] = [:]
    /// Why this generation started, when it replaced one that lost track.
    var restartReason: String?

    /// The keys touched after publish `sequence`.
    func keys(touchedAfter sequence: UInt64) -> [RecordKey] {
        touched.compactMap { $0.value > sequence ? $0.key : nil }
    }

    var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "format": .integer(Self.currentFormat), "pid": .integer(Int64(pid)), "generation": .string(generation.rawValue),
            "sequence": .integer(Int64(sequence)), "journalChangedAt": .integer(Int64(journalChangedAt)),
            "otherFilesChangedAt": .integer(Int64(otherFilesChangedAt)), "cookies": .array(cookies.map { .string($0) }),
            "touched": .array(
                touched.map { key, sequence in
                    .array([.string(key.entity.rawValue), .string(key.id.rawValue), .integer(Int64(sequence))])
                }),
        ]
        if let restartReason { members["restartReason"] = .string(restartReason) }
        return .object(members)
    }

    /// Reads a published state; `nil` for anything this build does not write exactly so (a
    /// reader then scans: a state it cannot trust is a state it does not use).
    init?(json: JSONValue) {
        guard let fields = json.objectValue, fields["format"]?.integerValue == Self.currentFormat,
            let pid = fields["pid"]?.integerValue.flatMap({ Int32(exactly: $0) }),
            let generation = fields["generation"]?.stringValue,
            let sequence = fields["sequence"]?.integerValue.flatMap({ UInt64(exactly: $0) }),
            let journal = fields["journalChangedAt"]?.integerValue.flatMap({ UInt64(exactly: $0) }),
            let other = fields["otherFilesChangedAt"]?.integerValue.flatMap({ UInt64(exactly: $0) }),
            let cookies = fields["cookies"]?.arrayValue, let touched = fields["touched"]?.arrayValue
        else { return nil }
        self.pid = pid
        self.generation = Generation(rawValue: generation)
        self.sequence = sequence
        journalChangedAt = journal
        otherFilesChangedAt = other
        self.cookies = []
        for cookie in cookies {
            guard let name = cookie.stringValue else { return nil }
            self.cookies.append(name)
        }
        for entry in touched {
            guard let parts = entry.arrayValue, parts.count == 3, let key = RecordKey(jsonParts: parts[0], parts[1]),
                let at = parts[2].integerValue.flatMap({ UInt64(exactly: $0) })
            else { return nil }
            self.touched[key] = at
        }
        restartReason = fields["restartReason"]?.stringValue
    }

    init(pid: Int32, generation: Generation) {
        self.pid = pid
        self.generation = generation
    }

    /// The state published at `path`; `nil` when there is none or it cannot be read.
    static func read(at path: String) -> HandEditMonitorState? {
        // A missing or torn file means no usable state: the caller scans.
        guard let bytes = try? FileSystem.readFile(path, limit: 64 << 20), let json = try? JSONParser.parse(bytes) else { return nil }
        return HandEditMonitorState(json: json)
    }
}

extension RecordKey {
    /// A key written as two JSON strings, entity and id; `nil` when they do not name one.
    init?(jsonParts entity: JSONValue, _ id: JSONValue) {
        guard let entityText = entity.stringValue, let idText = id.stringValue,
            let entity = try? EntityName(entityText), let id = try? RecordID(idText)
        else { return nil }
        self.init(entity: entity, id: id)
    }
}
