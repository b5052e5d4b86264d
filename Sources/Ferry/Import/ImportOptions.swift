/// How ``Store/importRecords(_:into:options:)`` brings an entity in line with an input array.
///
/// The defaults make the entity match the input exactly: insert, update and delete, every
/// stored record a candidate, changes written.
///
/// ```swift
/// var options = ImportOptions()
/// options.scope = try ImportFilter(parsing: #"companyID = "3""#)   // touch only company 3's users
/// options.operations = [.insert, .update]                          // never delete
/// options.isDryRun = true                                          // plan only
/// let report = try store.importRecords(bytes, into: EntityName("User"), options: options)
/// ```
public struct ImportOptions: Sendable {
    /// Which stored records are candidates for update and delete (`--scope`); all when `nil`.
    public var scope: ImportFilter?
    /// Import the input as the children of one record (`--parent User/6`): only that record's
    /// children are compared with the input, and every item is linked to it.
    public var parent: RecordKey?
    /// The kinds of change allowed (`--only`); the others are reported as withheld.
    public var operations: ImportOperations = .all
    /// Plan and report without writing (`--dry-run`).
    public var isDryRun = false
    /// Told how far an import has got, step by step: a streamed import's input read while
    /// checking it (bytes, out of the file's size when known), then the records written; an
    /// input read whole, its reading, parsing, converting, comparing, linking, checking,
    /// journaling, index and record files. Every step reports as it starts and as it ends,
    /// and every 1,024 items in between.
    public var progress: WorkProgressHandler?
    /// Told, once and before the work starts, when an array is read whole instead of streamed
    /// (memory and time then grow with the whole input), with why: `ferry import` prints it.
    public var readingWholeNote: (@Sendable (_ reason: String) -> Void)?
    /// The key convention for every entity, overriding the schema (`--keys camel`). Without it,
    /// an entity declared in `schema.json` uses its `keys`, and an undeclared one keeps keys as
    /// they are.
    public var keys: KeyConvention?
    /// The schema to use; when `nil`, the store's `schema.json` if it has one.
    public var schema: Schema?
    /// The current time in milliseconds since 1970 for relative times in ``scope``; the store's
    /// clock when `nil`.
    public var now: Int64?
    /// The largest input accepted, in bytes, when it is read whole: one item object, one with
    /// ``parent``, or an array of items that link records whose batches depend on each other
    /// (see `docs/IMPORT.md`). Any other array (at the top level or at ``path``) is read as a
    /// stream, of any size.
    public var maximumInputBytes = 1 << 30
    /// Where the array of items is inside an input object (`--path data`, `--path response.items`);
    /// the input's top level when `nil`.
    public var path: [String]?
    /// The largest share of an entity's records one import may delete without ``allowsMassDeletion``
    /// (`--max-delete`), as for sync.
    public var maximumDeletionShare = 0.5
    /// Go ahead even when the import deletes more than ``maximumDeletionShare`` (`--force`).
    public var allowsMassDeletion = false

    /// How many changes a real import lists in ``ImportReport/changes`` (a dry run lists all).
    public var maximumListedChanges = 10_000
    /// How many bytes a streamed input is read at a time (see ``JSONArrayStream``).
    var streamChunkBytes = 1 << 20
    /// How many items a streamed import converts, compares and writes at a time.
    var streamBatchItems = 8_192
    /// How many items a streamed import of items that link records converts, plans and writes
    /// at a time, at most: each item may make several records (a user and its notes), and a
    /// batch holds each record's document a few times over while it is planned and written.
    var linkedStreamBatchItems = 2_048
    /// How many bytes of input a streamed import's batch holds at most (give or take one
    /// window of ``streamChunkBytes``, or one item larger than that), so that large items make
    /// smaller batches: 8,192 items of 8 KB each held 67 MB of input at once, and about
    /// 300 MB of memory with what was made of them.
    var streamBatchBytes = 8 << 20

    /// Makes the default options: every operation, no scope, no parent, written for real.
    public init() {}
}
