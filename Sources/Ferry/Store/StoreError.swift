/// What can go wrong with a store. Each case carries the path, record or line it is about.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `path` has no `ferry.json`: it is not a store (or the stick is not mounted).
    case notAStore(path: String)
    /// `init` on a directory that already holds a store or other files.
    case alreadyExists(path: String)
    /// A store written by a newer (or unknown) format.
    case unsupportedFormat(Int64, path: String)
    /// `ferry.json` is unreadable.
    case damagedManifest(path: String, reason: String)
    /// Another process holds the store's lock.
    case locked(path: String, holder: Int32?, waitedSeconds: Double)
    /// No live record with this key.
    case recordNotFound(RecordKey)
    /// A document that is not JSON (from a file or the command line).
    case invalidJSON(source: String, line: Int, column: Int, reason: String)
    /// A value that breaks Ferry's rules (entity name, id, document shape, size).
    case invalid(ValidationError)
    /// The journal could not be read or written.
    case journal(JournalError)
    /// A system call failed.
    case io(SystemError)
    /// The index image or delta could not be read (it is rebuilt from the journal).
    case damagedIndex(reason: String)
    /// A Codable value could not be encoded or decoded.
    case coding(String)
    /// `resolve` on a record that has no conflict.
    case noConflict(RecordKey)
    /// A store folder a server was asked to open is a symbolic link, which may lead out of its root.
    case linkedFolder(path: String)
    /// A folder or file under `records/` is a symbolic link: Ferry reads, writes and deletes
    /// nothing through a link it did not make, so the store is left as it is.
    case linkInRecords(path: String)
    /// A `put`, `delete` or hand edit of a record in conflict: it would end the conflict
    /// without anyone choosing, so it is refused until the conflict is resolved.
    case conflictUnresolved(RecordKey, path: String)
    /// `reidentify` cannot tell the copy's own changes apart safely.
    case reidentifyBlocked(path: String, reason: String)
    /// A record file edited by hand cannot be journaled (not JSON, not an object), and
    /// something was about to replace it: nothing is replaced.
    case unjournaledEdit(path: String, reason: String)
    /// A journal entry no longer matches the digest it was written with (or, for an entry
    /// written before changes carried digests, its own hash): someone edited the line. The
    /// store refuses to pass it on. `location` is `journal/<segment>:<line>`.
    case alteredEntry(store: String, location: String, sequence: UInt64, change: ChangeIdentity, record: RecordKey)
    /// `.ferry/base.json` (what the store took from a hub snapshot) cannot be read.
    case damagedBase(reason: String)
    /// A sync checkpoint (`.ferry/peers/<peer>/checkpoint.json`) is there but cannot be read.
    case damagedCheckpoint(path: String, reason: String)
    /// `ferry compact` cannot write its archive folder: nothing was changed.
    case archiveNotWritable(path: String, reason: String)
    /// A peer needs changes that were archived (`ferry compact`) and the archive is not there.
    case historyArchived(store: String, position: UInt64, first: UInt64, archive: String)
    /// The store's signing key (`.ferry/signing-key`) cannot be used.
    case signingKeyUnreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .notAStore(let path):
            return "\(path) is not a Ferry store (no ferry.json); run 'ferry init \(path)' to make one"
        case .alreadyExists(let path):
            return "\(path) already exists and is not empty"
        case .unsupportedFormat(let format, let path):
            return "\(path) has store format \(format); this ferry reads format \(StoreManifest.currentFormat)"
        case .damagedManifest(let path, let reason):
            return "\(path)/ferry.json is damaged: \(reason)"
        case .locked(let path, let holder, let waited):
            let who = holder.map { " by process \($0)" } ?? ""
            return "\(path) is locked\(who); gave up after \(waited) s"
        case .recordNotFound(let key):
            return "no record \(key)"
        case .invalidJSON(let source, let line, let column, let reason):
            return "\(source):\(line):\(column): invalid JSON: \(reason)"
        case .invalid(let error):
            return error.description
        case .journal(let error):
            return error.description
        case .io(let error):
            return error.description
        case .damagedIndex(let reason):
            return "index is damaged: \(reason)"
        case .coding(let reason):
            return reason
        case .noConflict(let key):
            return "\(key) has no conflict to resolve"
        case .linkedFolder(let path):
            return "\(path) is a symbolic link; ferry serve follows none, since it may lead out of its root"
        case .linkInRecords(let path):
            return "\(path) is a symbolic link; Ferry follows no link under records/ (it would read the files it leads to "
                + "as deleted, and delete through it), so nothing was read or written: put the folder or file itself there "
                + "(move its target back in place of the link) and run again"
        case .conflictUnresolved(let key, let path):
            return "\(key) is in conflict: resolve it first (ferry conflicts \(path); ferry resolve \(path) \(key.entity.rawValue) "
                + "\(key.id.rawValue) --take VERSION|FILE or --file FILE); nothing was written"
        case .reidentifyBlocked(let path, let reason):
            return "cannot re-identify \(path): \(reason); nothing was changed"
        case .unjournaledEdit(let path, let reason):
            return "\(path) was edited by hand and is not a valid record (\(reason)); replacing it would lose the edit, "
                + "so nothing was changed: fix or remove the file, then run again"
        case .alteredEntry(let store, let location, let sequence, let change, let record):
            return "\(store)/\(location): journal entry \(sequence) (change \(change) to \(record)) was altered after it was "
                + "written: it no longer matches its digest; refusing to send it, nothing was exchanged; run 'ferry verify \(store)'"
        case .archiveNotWritable(let path, let reason):
            return "cannot write the archive folder \(path): \(reason); the store is unchanged"
        case .historyArchived(let store, let position, let first, let archive):
            return "\(store): the peer needs changes after position \(position), but history before \(first) was archived to \(archive), which is not there; put the archive back, or sync from the peer's side so it takes this store's state"
        case .damagedCheckpoint(let path, let reason):
            return "\(path) (what this store last exchanged with that peer) is damaged: \(reason); nothing was synced; "
                + "remove it to sync with that peer as if for the first time (a reconcile by record: nothing is lost)"
        case .signingKeyUnreadable(let path, let reason):
            return "\(path) (this replica's private signing key) cannot be used: \(reason); nothing was changed"
        case .damagedBase(let reason):
            return ".ferry/base.json (what this store took from a hub snapshot) is damaged: \(reason); move it aside "
                + "and sync with that hub again, which restores it"

        }
    }
}
