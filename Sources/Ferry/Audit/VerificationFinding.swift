/// One problem `verify` found, with where it is: a journal segment and line, or a file.
///
/// ```swift
/// for finding in report.findings {
///     print(finding)   // journal/00000000000000000001.jsonl:7: tampering: …
/// }
/// ```
public struct VerificationFinding: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is, and so whether it means tampering.
    public enum Category: String, Sendable, Hashable, CaseIterable {
        /// The journal was edited, cut, reordered or added to by hand.
        case tampering
        /// A write a crash interrupted (a torn last line); opening the store cuts it off.
        case interruptedWrite = "interrupted-write"
        /// A record file edited, created or deleted by hand and not yet journaled.
        case uncommittedEdit = "uncommitted-edit"
        /// A record file edited or created by hand that `commit` would refuse: not a JSON
        /// object.
        case invalidFile = "invalid-file"
        /// A file or folder under `records/` that is no record: a name Ferry cannot read as an
        /// id, a second file for one record, a stray folder.
        case notARecord = "not-a-record"
        /// A live record's file is gone: deleted by hand, or never written (a write that
        /// failed); a commit would journal a deletion, so the advice is to restore it first.
        case missingFile = "missing-file"
        /// A conflicted record's losing version has no file under `conflicts/`; a commit would
        /// not bring it back, so the advice is to resolve the conflict.
        case missingConflictFile = "missing-conflict-file"
        /// A symbolic link under `records/`, which Ferry does not follow.
        case link = "symbolic-link"
        /// The index image (a cache) disagrees with the journal.
        case index
        /// A file could not be read.
        case unreadable

        /// How the human report names the category.
        public var label: String {
            switch self {
            case .tampering: return "tampering"
            case .interruptedWrite: return "interrupted write"
            case .uncommittedEdit: return "uncommitted edit (run ferry commit)"
            case .invalidFile: return "invalid record file (fix it, then run ferry commit)"
            case .notARecord: return "not a record (move it out of records/, or list it in .ferryignore)"
            case .missingConflictFile: return "missing conflict file (resolve the conflict)"
            case .missingFile: return "missing record file (restore it from the journal, or delete the record)"
            case .link: return "symbolic link (Ferry follows none under records/)"
            case .index: return "index"
            case .unreadable: return "unreadable"
            }
        }
    }

    /// The precise kind of problem.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A line that is not a journal entry.
        case malformedLine = "malformed-line"
        /// A line whose content no longer matches its `hash`.
        case editedLine = "edited-line"
        /// A line whose content matches its hash but whose bytes are not the canonical form.
        case reformattedLine = "reformatted-line"
        /// A line changed and given a recomputed hash: the next entry's `prev` disagrees.
        case rewrittenLine = "rewritten-line"
        /// Entries missing from the middle of the journal.
        case removedLines = "removed-lines"
        /// A line that does not belong to the chain (an extra or duplicated entry).
        case insertedLine = "inserted-line"
        /// An entry out of sequence order.
        case reorderedLine = "reordered-line"
        /// A segment that lost its end (or was emptied).
        case truncatedSegment = "truncated-segment"
        /// A whole segment file is gone.
        case missingSegment = "missing-segment"
        /// A segment whose file name is not its first entry's sequence.
        case misnamedSegment = "misnamed-segment"
        /// The index or a checkpoint covers entries the journal no longer has at its end.
        case truncatedJournal = "truncated-journal"
        /// The index or a checkpoint recorded another hash for an entry: the chain was rebuilt.
        case rewrittenJournal = "rewritten-journal"
        /// An incomplete last line left by an interrupted write.
        case tornTail = "torn-tail"
        /// A record file holding an older version Ferry wrote: a crash came between the journal
        /// append and the file update.
        case staleRecordFile = "stale-record-file"
        /// A live record's file holds other content than the journal's replay.
        case modifiedRecordFile = "modified-record-file"
        /// A live record has no file.
        case missingRecordFile = "missing-record-file"
        /// A file under `records/` with no live record: created by hand, or not a record file.
        case unexpectedRecordFile = "unexpected-record-file"
        /// A record file edited or created by hand that is not a JSON object.
        case invalidRecordFile = "invalid-record-file"
        /// An entry under `records/` that cannot be a record's file: an odd name, a folder or
        /// special file where record files go, or a file named by hand for a record that
        /// has a file already.
        case strayFile = "stray-file"
        /// A record deleted in the journal still has a file.
        case fileOfDeletedRecord = "file-of-deleted-record"
        /// A conflicted record's losing version has no file under `conflicts/`.
        case missingConflictFile = "missing-conflict-file"
        /// The index image disagrees with the replay.
        case indexMismatch = "index-mismatch"
        /// A file that could not be read.
        case unreadableFile = "unreadable-file"
        /// A folder or file under `records/` that is a symbolic link.
        case symbolicLink = "symbolic-link"
        /// Changes of a replica that signs its work, not covered by a signature of its key
        /// that checks: written by someone without its key (see docs/FORMAT.md, "Signed work").
        case unsignedWork = "unsigned-work"

        /// The category the kind belongs to.
        public var category: Category {
            switch self {
            case .malformedLine, .editedLine, .reformattedLine, .rewrittenLine, .removedLines, .insertedLine,
                .reorderedLine, .truncatedSegment, .missingSegment, .misnamedSegment, .truncatedJournal,
                .rewrittenJournal, .unsignedWork:
                return .tampering
            case .tornTail, .staleRecordFile:
                return .interruptedWrite
            case .modifiedRecordFile, .unexpectedRecordFile, .fileOfDeletedRecord:
                return .uncommittedEdit
            case .missingConflictFile:
                return .missingConflictFile
            case .missingRecordFile:
                return .missingFile
            case .invalidRecordFile:
                return .invalidFile
            case .strayFile:
                return .notARecord
            case .symbolicLink:
                return .link
            case .indexMismatch:
                return .index
            case .unreadableFile:
                return .unreadable
            }
        }
    }

    /// What was found.
    public var kind: Kind
    /// The file, relative to the store: a segment (`journal/00000000000000000001.jsonl`), a
    /// record file, `.ferry/index` or a checkpoint.
    public var path: String
    /// The 1-based line within a segment, when the finding is about one line.
    public var line: Int?
    /// The record concerned, if any.
    public var record: RecordKey?
    /// One sentence saying what is wrong and what it means.
    public var message: String

    /// Makes a finding.
    public init(kind: Kind, path: String, line: Int? = nil, record: RecordKey? = nil, message: String) {
        self.kind = kind
        self.path = path
        self.line = line
        self.record = record
        self.message = message
    }

    /// The category of ``kind``.
    public var category: Category { kind.category }

    /// `path:line` or `path`.
    public var location: String { line.map { "\(path):\($0)" } ?? path }

    /// `<location>: <category>: <message>`.
    public var description: String { "\(location): \(category.label): \(message)" }

    /// The finding as JSON: kind, category, path, line (when known), record (when known), message.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "kind": .string(kind.rawValue), "category": .string(category.rawValue), "path": .string(path),
            "message": .string(message),
        ]
        if let line { members["line"] = .integer(Int64(line)) }
        if let record {
            members["entity"] = .string(record.entity.rawValue)
            members["id"] = .string(record.id.rawValue)
        }
        return .object(members)
    }
}
