/// How two replicas of a store differ: changes only one of them has, records whose current
/// content differs, and (when asked) record files whose bytes differ.
///
/// ```swift
/// let comparison = try laptop.compare(with: server)
/// comparison.onlyInFirst.count    // changes the laptop has that the server lacks
/// comparison.isIdentical          // false until they sync
/// ```
public struct ReplicaComparison: Sendable, Hashable {
    /// A record's state in one replica.
    public enum Side: Sendable, Hashable {
        /// The replica never had the record.
        case absent
        /// The record is deleted there.
        case deleted
        /// The record's current document there.
        case live(JSONValue)

        /// The document, when live.
        public var document: JSONValue? {
            if case .live(let document) = self { return document }
            return nil
        }

        /// `absent`, `deleted` or `live`.
        public var name: String {
            switch self {
            case .absent: return "absent"
            case .deleted: return "deleted"
            case .live: return "live"
            }
        }
    }

    /// A record whose current content differs between the replicas.
    public struct RecordDifference: Sendable, Hashable {
        /// The record.
        public var key: RecordKey
        /// The record in the first replica.
        public var first: Side
        /// The record in the second replica.
        public var second: Side
        /// Field changes from the first replica's document to the second's.
        public var changes: [FieldChange]

        /// Makes a record difference.
        public init(key: RecordKey, first: Side, second: Side, changes: [FieldChange]) {
            self.key = key
            self.first = first
            self.second = second
            self.changes = changes
        }
    }

    /// A record file whose bytes differ (``Store/compare(with:includingFiles:)`` with files).
    public struct FileDifference: Sendable, Hashable {
        /// Which side has what.
        public enum Kind: String, Sendable, Hashable {
            /// Only the first replica has the file.
            case onlyInFirst = "only-in-first"
            /// Only the second replica has the file.
            case onlyInSecond = "only-in-second"
            /// Both have it, with different bytes.
            case contentDiffers = "content-differs"
        }
        /// The file's path relative to the store (`records/Product/lamp.json`).
        public var path: String
        /// Which side has the file, or that both have it with other bytes.
        public var kind: Kind

        /// Makes a file difference.
        public init(path: String, kind: Kind) {
            self.path = path
            self.kind = kind
        }
    }

    /// Journal entries of the first replica whose change the second does not have, in journal order.
    public var onlyInFirst: [JournalEntry] = []
    /// Journal entries of the second replica whose change the first does not have, in journal order.
    public var onlyInSecond: [JournalEntry] = []
    /// Records whose current content differs, sorted by key.
    public var records: [RecordDifference] = []
    /// Record files whose bytes differ; empty unless files were compared.
    public var files: [FileDifference] = []
    /// Whether record files were compared byte for byte.
    public var comparedFiles = false
    /// How many entries of the first journal were read to find its changes (the knowledge
    /// vectors and a checkpoint keep this small).
    public var firstEntriesScanned = 0
    /// How many entries of the second journal were read to find its changes.
    public var secondEntriesScanned = 0

    /// Replicas whose changes the two stores hold with different content under the same
    /// counter (the origin and the counter where it shows): a copied store folder.
    public var divergedReplicas: [ChangeIdentity] = []

    /// An empty comparison: identical.
    public init() {}

    /// Whether the replicas have the same changes, the same content, and (when compared) the
    /// same record files.
    public var isIdentical: Bool {
        onlyInFirst.isEmpty && onlyInSecond.isEmpty && records.isEmpty && files.isEmpty && divergedReplicas.isEmpty
    }
}
