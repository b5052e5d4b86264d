#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a store behaves: its clock, limits and where warnings go. All have sensible defaults.
///
/// ```swift
/// var options = StoreOptions()
/// options.clock = ManualClock(milliseconds: 1_700_000_000_000)
/// let store = try Store.open(at: "./data", options: options)
/// ```
public struct StoreOptions: Sendable {
    /// The wall clock behind the store's hybrid logical clock.
    public var clock: any WallClock = SystemClock()
    /// How long to wait for another process's lock before giving up, in seconds.
    public var lockTimeout: Double = 10
    /// The largest document accepted, in canonical bytes: 32 MiB, so a journal line (at most
    /// 40 MiB) always holds one, and one change fits the server's default 64 MiB body.
    public var maximumDocumentBytes: Int = 32 << 20
    /// The deepest nesting accepted in a document.
    public var maximumDepth: Int = 512

    /// The parser's limits for a record file: this store's depth, and four times its largest
    /// document, for the spaces of the pretty layout (the parser's defaults, 16 MiB, refused a
    /// file of a document the store accepts).
    var recordFileParsing: JSONParser.Options {
        JSONParser.Options(maximumDepth: maximumDepth, maximumByteCount: maximumDocumentBytes * 4 + 4096)
    }
    /// Closing a store writes the records changed since the index image to a small delta
    /// file; once this many records (and a sixteenth of the store) have changed, it writes a
    /// whole new image instead.
    public var imageInterval: UInt64 = 4096
    /// The former name of ``imageInterval``, from when the index's image was called its
    /// snapshot ("snapshot" now names only what a joining store takes from a peer).
    @available(*, deprecated, renamed: "imageInterval")
    public var snapshotInterval: UInt64 {
        get { imageInterval }
        set { imageInterval = newValue }
    }
    /// During a long run of writes, the records changed in memory are merged into a new
    /// image, on another thread, once this many have piled up (whatever the store's size,
    /// so memory stays flat as the store grows).
    /// A merge writes a new delta, or a new image once the delta would reach half of the
    /// image: a lower interval bounds memory tighter (about 700 bytes per changed record)
    /// and costs more merges. A streamed import merges at a quarter of it, so its memory is
    /// that of its batches whatever the store's size.
    public var mergeInterval: Int = 65_536
    /// A page of changes this store reads for a peer (a sync's pull from it, or a join from its
    /// state) ends once its documents take about this many bytes, as well as at the page's
    /// count of changes: 8 MiB, so a page of large records stays as small in memory as one of
    /// small records (5,000 records of 8 KB made a full pull peak at 284 MB). At least one
    /// change is read whatever its size.
    public var maximumPageBytes: Int = 8 << 20
    /// Whether the store signs its changes and checks the signatures of what it receives.
    /// Only `ferry-bench` turns it off, to measure what signing costs side by side: a store
    /// that neither signs nor checks cannot prove who made its changes.
    package var signsWork = true
    /// Receives one-line warnings (a torn journal tail cut off, an index rebuilt).
    public var warningHandler: @Sendable (String) -> Void = { message in
        let line = Array((message + "\n").utf8)
        line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    public init() {}
}
