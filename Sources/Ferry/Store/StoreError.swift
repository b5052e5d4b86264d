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
    /// The index snapshot could not be read (it is rebuilt from the journal).
    case damagedIndex(reason: String)
    /// A Codable value could not be encoded or decoded.
    case coding(String)
    /// `resolve` on a record that has no conflict.
    case noConflict(RecordKey)

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

        }
    }
}
