/// The list of archived journal segments in one archive folder: `<archive>/manifest.json`,
/// written by `ferry compact` after the segments themselves and before the journal is cut.
///
/// Each archived segment is the live segment's file, byte for byte, under its own name. The
/// manifest binds each to the chain: its first and last sequence, the hash its first entry
/// chains onto (`previous`), its last entry's hash (`last-hash`), and the SHA-256 of the whole
/// file, so a flipped byte is found without trusting the file, and the folder can be moved
/// away and checked later.
///
/// ```json
/// {"ferry-archive":1,"replica":"<store replica>","segments":[{"bytes":812345,
///  "file":"00000000000000000001.jsonl","first":1,"last":4096,"last-hash":"…","previous":"000…0","sha256":"…"}]}
/// ```
public struct ArchiveManifest: Sendable, Hashable {
    /// The format this Ferry writes.
    public static let format: Int64 = 1
    /// The manifest's name inside an archive folder.
    public static let fileName = "manifest.json"

    /// One archived segment.
    public struct Segment: Sendable, Hashable {
        public var file: String
        public var first: UInt64
        public var last: UInt64
        /// The hash of the entry before `first` (zeros for seq 1).
        public var previous: SHA256Digest
        /// The hash of the entry at `last`.
        public var lastHash: SHA256Digest
        /// SHA-256 of the file's bytes, and their count.
        public var sha256: SHA256Digest
        public var bytes: Int64

        public init(file: String, first: UInt64, last: UInt64, previous: SHA256Digest, lastHash: SHA256Digest, sha256: SHA256Digest, bytes: Int64) {
            self.file = file
            self.first = first
            self.last = last
            self.previous = previous
            self.lastHash = lastHash
            self.sha256 = sha256
            self.bytes = bytes
        }
    }

    /// The store whose journal this is.
    public var replica: ReplicaID
    /// The segments, in sequence order.
    public var segments: [Segment]

    public init(replica: ReplicaID, segments: [Segment]) {
        self.replica = replica
        self.segments = segments
    }

    /// The segment holding `sequence`.
    public func segment(holding sequence: UInt64) -> Segment? {
        segments.first { $0.first <= sequence && sequence <= $0.last }
    }

    public var jsonValue: JSONValue {
        [
            "ferry-archive": .integer(Self.format), "replica": .string(replica.rawValue),
            "segments": .array(
                segments.map {
                    [
                        "file": .string($0.file), "first": .integer(Int64(clamping: $0.first)), "last": .integer(Int64(clamping: $0.last)),
                        "previous": .string($0.previous.hex), "last-hash": .string($0.lastHash.hex), "sha256": .string($0.sha256.hex),
                        "bytes": .integer($0.bytes),
                    ]
                }),
        ]
    }

    /// Reads a manifest's content.
    /// - Throws: a one-line reason when it is not an archive manifest this Ferry reads.
    public init(json value: JSONValue) throws(JournalError) {
        func bad(_ reason: String) -> JournalError { .damagedArchive(reason: reason) }
        guard let format = value["ferry-archive"]?.integerValue else { throw bad("no \"ferry-archive\" format number") }
        guard format == Self.format else { throw bad("format \(format); this ferry reads format \(Self.format)") }
        guard let replicaText = value["replica"]?.stringValue, let replica = ReplicaID(replicaText) else { throw bad("no replica") }
        var segments: [Segment] = []
        for item in value["segments"]?.arrayValue ?? [] {
            guard let file = item["file"]?.stringValue, let segment = JournalSegment(fileName: file),
                let first = item["first"]?.integerValue, UInt64(clamping: first) == segment.firstSequence,
                let last = item["last"]?.integerValue, last >= first,
                let previous = item["previous"]?.stringValue.flatMap({ SHA256Digest(hex: $0) }),
                let lastHash = item["last-hash"]?.stringValue.flatMap({ SHA256Digest(hex: $0) }),
                let sha = item["sha256"]?.stringValue.flatMap({ SHA256Digest(hex: $0) }),
                let bytes = item["bytes"]?.integerValue, bytes >= 0
            else { throw bad("a segment is not described correctly") }
            segments.append(
                Segment(file: file, first: UInt64(first), last: UInt64(last), previous: previous, lastHash: lastHash, sha256: sha, bytes: bytes))
        }
        self.init(replica: replica, segments: segments.sorted { $0.first < $1.first })
    }

    /// Reads the manifest in `folder`; `nil` when there is none.
    public static func read(folder: String) throws(JournalError) -> ArchiveManifest? {
        let path = folder + "/" + fileName
        let bytes: [UInt8]
        do {
            guard FileSystem.exists(path) else { return nil }
            bytes = try FileSystem.readFile(path, limit: 64 << 20)
        } catch { throw .io(error) }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: .init(maximumDepth: 8, maximumByteCount: 64 << 20)) } catch {
            throw .damagedArchive(reason: "\(path): \(error.description)")
        }
        return try ArchiveManifest(json: value)
    }
}
