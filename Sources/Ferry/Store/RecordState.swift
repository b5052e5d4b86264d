/// What the index knows of one record: its current versions and its file.
///
/// The versions form a multi-value register: the set of versions no other known version
/// descends from. Usually one; several when replicas edited concurrently. Because the set
/// depends only on which versions are known, never on the order they arrived in, every
/// replica that has seen the same changes holds the same state and picks the same winner.
public struct RecordState: Sendable, Hashable {
    /// The concurrent versions, winner first (see ``RecordVersion/ranksBefore(_:_:)``).
    public internal(set) var versions: [RecordVersion]
    /// The latest journal entry about this record, for the `pseq` chain.
    public internal(set) var lastSequence: UInt64
    /// What Ferry last wrote to (or confirmed in) the record file; `nil` when unknown.
    var file: FileStamp?

    init(versions: [RecordVersion], lastSequence: UInt64, file: FileStamp?) {
        self.versions = versions
        self.lastSequence = lastSequence
        self.file = file
    }

    /// The version shown as the record.
    public var winner: RecordVersion { versions[0] }

    /// Whether the record exists (its winner is not a tombstone).
    public var isLive: Bool { !versions[0].isDelete }

    /// What a put must hash to to change nothing: the winner's content hash when the record
    /// is live and not in conflict; `.zero` (no document's hash) when in conflict, so any put
    /// resolves it; `nil` when deleted.
    var liveContentHash: SHA256Digest? {
        guard isLive else { return nil }
        return isConflicted ? .zero : winner.contentHash
    }

    /// Whether concurrent versions with different content wait for resolution.
    public var isConflicted: Bool {
        versions.dropFirst().contains { !$0.hasSameContent(as: versions[0]) }
    }

    /// The versions that lost to the winner and differ from it.
    public var losers: [RecordVersion] {
        var seen: [RecordVersion] = []
        for version in versions.dropFirst() where !version.hasSameContent(as: versions[0]) {
            if !seen.contains(where: { $0.hasSameContent(as: version) }) { seen.append(version) }
        }
        return seen
    }

    /// The version that has seen every current version: what a local edit descends from.
    public var mergedVersion: VersionVector {
        versions.dropFirst().reduce(versions[0].version) { $0.merged(with: $1.version) }
    }

    /// Whether the record has `version` or a version that descends from it.
    public func holds(_ version: VersionVector) -> Bool {
        versions.contains { $0.version.dominates(version) }
    }

    /// How an incoming version relates to the record.
    enum Incorporation: Equatable {
        /// It is new and now among the current versions.
        case added
        /// A current version already descends from it (or is it): nothing changes.
        case stale
    }

    /// Adds a version: drops the versions it descends from; ignores it when a current version
    /// descends from it.
    mutating func incorporate(_ incoming: RecordVersion) -> Incorporation {
        for existing in versions {
            let order = existing.version.compare(to: incoming.version)
            if order == .after || order == .equal { return .stale }
        }
        versions.removeAll { incoming.version.dominates($0.version) }
        versions.append(incoming)
        versions.sort(by: RecordVersion.ranksBefore)
        return .added
    }
}

/// The state of a record file as Ferry last wrote or confirmed it, to notice edits cheaply.
struct FileStamp: Sendable, Hashable {
    var size: Int64
    var modificationNanoseconds: Int64
    var inode: UInt64
    /// SHA-256 of the file's bytes.
    var contentHash: SHA256Digest
    /// When the stamp was taken; a file modified within the timestamp granularity before this
    /// moment is "racily clean" and must be confirmed by content. A stamp confirmed against
    /// the file system's own clock (``confirmedClean()``) holds the first moment the rule of
    /// ``matches(_:)`` accepts instead.
    var takenAtNanoseconds: Int64

    init(size: Int64, modificationNanoseconds: Int64, inode: UInt64, contentHash: SHA256Digest, takenAtNanoseconds: Int64) {
        self.size = size
        self.modificationNanoseconds = modificationNanoseconds
        self.inode = inode
        self.contentHash = contentHash
        self.takenAtNanoseconds = takenAtNanoseconds
    }

    /// The stamp of a file with `status` and content hash `contentHash`, taken `at` (by
    /// default now, which must be after the file was last written).
    init(_ status: FileStatus, contentHash: SHA256Digest, at taken: Int64 = FileSystem.currentTimeNanoseconds()) {
        self.init(
            size: status.size, modificationNanoseconds: status.modificationNanoseconds, inode: status.inode,
            contentHash: contentHash, takenAtNanoseconds: taken)
    }

    /// The stamp, known clean: its file's content was read back and matched after the file
    /// system's clock had moved past the file's modification time (see
    /// ``Store/confirmWrittenFiles(_:)``), so any later change moves that time. Its
    /// ``takenAtNanoseconds`` becomes the first moment ``matches(_:)`` accepts.
    func confirmedClean() -> FileStamp {
        var stamp = self
        stamp.takenAtNanoseconds = max(takenAtNanoseconds, modificationNanoseconds + FileStamp.granularityNanoseconds + 1)
        return stamp
    }

    /// The timestamp granularity assumed: coarse enough for FAT and network shares.
    static let granularityNanoseconds: Int64 = 2_000_000_000

    /// Whether `status` matches without reading the file.
    func matches(_ status: FileStatus) -> Bool {
        FileStamp.matches(size: size, modified: modificationNanoseconds, inode: inode, taken: takenAtNanoseconds, status)
    }

    /// The rule of ``matches(_:)`` on a stamp's fields (a status scan reads them from the
    /// snapshot's raw text without building a stamp).
    static func matches(size: Int64, modified: Int64, inode: UInt64, taken: Int64, _ status: FileStatus) -> Bool {
        size == status.size && modified == status.modificationNanoseconds && inode == status.inode
            && status.modificationNanoseconds + granularityNanoseconds < taken
    }
}
