import FerryTestSupport
@testable import Ferry

/// Stores in a temporary directory sharing one manual clock, so audit tests control every
/// change's time. Each write advances the clock by a minute unless told otherwise.
final class AuditFixture {
    /// 2025-11-21T00:00:00Z.
    static let start: UInt64 = 1_763_683_200_000

    let directory: TemporaryDirectory
    let clock = ManualClock(milliseconds: AuditFixture.start)
    let products = try! EntityName("Product")
    let notes = try! EntityName("Note")

    init() throws {
        directory = try TemporaryDirectory(prefix: "ferry-audit")
    }

    var options: StoreOptions {
        var options = StoreOptions()
        options.clock = clock
        options.warningHandler = { _ in }
        options.imageInterval = 0  // closing always writes the index image
        return options
    }

    func path(_ name: String) -> String { directory.subpath(name) }

    /// A new store named `name` (also its replica name).
    func create(_ name: String) throws -> Store {
        try Store.create(at: path(name), name: name, options: options)
    }

    /// Opens the store `name` again.
    func open(_ name: String) throws -> Store {
        try Store.open(at: path(name), options: options)
    }

    /// The time `minutes` after ``start``.
    func time(minutes: UInt64) -> AuditTime { AuditTime(milliseconds: Self.start + minutes * 60_000) }

    /// Puts `document` at the current time, then moves the clock a minute on.
    @discardableResult
    func put(_ store: Store, _ document: JSONValue, _ entity: EntityName? = nil, _ id: String) throws -> JournalEntry? {
        let result = try store.write([.put(RecordKey(entity: entity ?? products, id: try RecordID(id)), document)])
        clock.advance(by: 60_000)
        return result.entries.first
    }

    /// Deletes at the current time, then moves the clock a minute on.
    func delete(_ store: Store, _ entity: EntityName? = nil, _ id: String) throws {
        try store.delete(entity: entity ?? products, id: try RecordID(id))
        clock.advance(by: 60_000)
    }

    /// Syncs `store` with the store at `peer`'s path.
    func sync(_ store: Store, with peer: String) async throws -> SyncReport {
        try await store.sync(with: FolderTransport(path: path(peer), options: options))
    }
}

/// Reads and rewrites a store's journal segments line by line, to tamper with them in tests.
struct JournalFiles {
    let directory: String

    init(store path: String) {
        directory = path + "/journal"
    }

    /// Segment file names, in order.
    var segments: [String] {
        ((try? FileSystem.contents(ofDirectory: directory)) ?? []).map(\.name).filter { $0.hasSuffix(".jsonl") }.sorted()
    }

    /// The first segment's name.
    var first: String { segments.first ?? "" }

    /// The lines of `segment`, without their newlines.
    func lines(_ segment: String) throws -> [[UInt8]] {
        let bytes = try FileSystem.readFile(directory + "/" + segment)
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        if lines.last == [] { lines.removeLast() }
        return lines
    }

    /// Replaces `segment` with `lines`, each followed by a newline.
    func write(_ segment: String, _ lines: [[UInt8]]) throws {
        var bytes: [UInt8] = []
        for line in lines { bytes += line + [UInt8(ascii: "\n")] }
        try writeBytes(segment, bytes)
    }

    func writeBytes(_ segment: String, _ bytes: [UInt8]) throws {
        _ = try FileSystem.writeFileAtomically(directory + "/" + segment, bytes, durable: false)
    }

    /// The entry on line `number` (1-based) of `segment`.
    func entry(_ segment: String, line number: Int) throws -> JournalEntry {
        let line = try lines(segment)[number - 1]
        return try line.withUnsafeBytes { try JournalEntry.decode(line: $0) }
    }

    /// The canonical line of `entry` with its hash recomputed, without a newline.
    static func line(_ entry: JournalEntry) -> [UInt8] {
        Array(JournalEntry.make(
            sequence: entry.sequence, change: entry.change, previousSequenceOfRecord: entry.previousSequenceOfRecord,
            previousHash: entry.previousHash
        ).line.dropLast())
    }
}
