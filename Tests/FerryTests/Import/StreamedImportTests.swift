import FerryTestSupport
import Foundation
import Synchronization
import Testing

@testable import Ferry

/// A top-level array of unlinked items is imported as a stream, in batches, with a bounded
/// window on the input (issue 19, items 1 and 7): the result must be that of the one-batch
/// import, every problem must be found before anything is written, and the input must never
/// be held whole.
@Suite struct StreamedImportTests {
    static let user = try! EntityName("User")

    /// Options that make a few megabytes many batches: a 64 KiB read window, 100 items a batch.
    static func small(_ options: ImportOptions = ImportOptions()) -> ImportOptions {
        var options = options
        options.streamChunkBytes = 64 << 10
        options.streamBatchItems = 100
        options.maximumListedChanges = .max
        return options
    }

    /// `ids` as items of about 1.3 KB each; those in `renamed` with another name.
    static func items(_ ids: some Sequence<Int>, renamed: Set<Int> = []) -> String {
        let padding = String(repeating: "lorem ipsum ", count: 100)
        return "[\n" + ids.map { id in
            let name = "User \(id)\(renamed.contains(id) ? " (renamed)" : "")"
            return #"  {"id": \#(id), "name": "\#(name)", "team": "\#(id % 5)", "bio": "\#(padding)é✓", "tags": ["a", {"b": [\#(id)]}]}"#
        }.joined(separator: ",\n") + "\n]\n"
    }

    /// Two stores holding the same records, imported the one-batch way.
    static func twins(_ directory: TemporaryDirectory, seed: String) throws -> (streamed: Store, reference: Store) {
        let streamed = try makeImportStore(in: directory, name: "streamed")
        let reference = try makeImportStore(in: directory, name: "reference")
        for store in [streamed, reference] {
            _ = try store.importRecords(try JSONParser.parse(seed), into: EntityName("User"))
        }
        return (streamed, reference)
    }

    /// The one-batch import: the text parsed whole, then imported as a value.
    static func referenceImport(_ text: String, into store: Store, options: ImportOptions) -> Result<ImportReport, ImportError> {
        var options = options
        options.maximumListedChanges = .max
        let parsed = Result { () throws(JSONParseError) in try JSONParser.parse(text, options: .init(maximumDepth: 513, maximumByteCount: 1 << 30)) }
        return Result { () throws(ImportError) in
            let value: JSONValue
            switch parsed {
            case .success(let parsed): value = parsed
            case .failure(let error): throw .invalidJSON(line: error.line, column: error.column, reason: error.reason)
            }
            return try store.importRecords(value, into: Self.user, options: options)
        }
    }

    /// The streamed import of `text` from a file.
    static func streamedImport(
        _ text: String, into store: Store, directory: TemporaryDirectory, options: ImportOptions
    ) throws -> Result<ImportReport, ImportError> {
        let path = directory.subpath("input-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return Result { () throws(ImportError) in try store.importRecords(from: .file(path), into: Self.user, options: options) }
    }

    /// What a report says, without how it was read.
    static func summary(_ report: ImportReport) -> [String] {
        [
            "\(report.countsByEntity)", "\(report.withheld)", "\(report.refusals)", "\(report.journalEntries)",
            "\(report.skipped)", "\(report.isDryRun)",
        ] + report.changes.map { "\($0.kind) \($0.key) \($0.changedKeys)" }
    }

    /// Every live User record's id and document.
    static func contents(_ store: Store) throws -> [String: JSONValue] {
        var contents: [String: JSONValue] = [:]
        for id in try store.idTexts("User") { contents[id] = try store.document("User", id) }
        return contents
    }

    @Test func aDocumentManyTimesTheMemoryLimitImportsAsOneBatchWould() throws {
        let directory = try TemporaryDirectory()
        let (streamed, reference) = try Self.twins(directory, seed: Self.items(1...1_200))
        // 400 gone, 200 renamed, 600 unchanged, 800 new: over 2 MB, 33 windows of 64 KiB.
        let text = Self.items(401...2_000, renamed: Set(stride(from: 401, through: 1_200, by: 4)))
        #expect(text.utf8.count > 2_000_000)
        let report = try Self.streamedImport(text, into: streamed, directory: directory, options: Self.small()).get()
        let expected = try Self.referenceImport(text, into: reference, options: ImportOptions()).get()
        #expect(report.counts == .init(inserted: 800, updated: 200, deleted: 400, unchanged: 600))
        #expect(Self.summary(report) == Self.summary(expected))
        #expect(try Self.contents(streamed) == Self.contents(reference))
        // The window held a chunk and the item it ended in, never the document.
        #expect(report.inputHighWaterBytes > 0)
        #expect(report.inputHighWaterBytes <= 2 * (64 << 10))
        #expect(streamed.headSequence == reference.headSequence)
        let again = try Self.streamedImport(text, into: streamed, directory: directory, options: Self.small()).get()
        #expect(again.counts == .init(unchanged: 1_600) && again.journalEntries == 0)
    }

    /// An API's wrapped list (`{"meta": …, "data": [...], "links": …}` at `--path data`) is
    /// streamed too: the result is the one-batch import's, the window stays a chunk and an
    /// item, and a limit on whole inputs far below the document's size does not apply.
    @Test func aWrappedArrayAtAPathIsStreamed() throws {
        let directory = try TemporaryDirectory()
        let (streamed, reference) = try Self.twins(directory, seed: Self.items(1...600))
        let meta = #"{"page": 1, "note": "}],\"", "cursor": {"next": null, "seen": [1, [2]]}}"#
        let text = #"{"meta": \#(meta), "response": {"count": 1400, "data": \#(Self.items(201...1_600, renamed: [300, 400]))}, "links": {"self": "/users"}}"#
        #expect(text.utf8.count > 1_800_000)
        var options = Self.small()
        options.path = ["response", "data"]
        options.maximumInputBytes = 100_000
        let report = try Self.streamedImport(text, into: streamed, directory: directory, options: options).get()
        var referenceOptions = ImportOptions()
        referenceOptions.path = ["response", "data"]
        let expected = try Self.referenceImport(text, into: reference, options: referenceOptions).get()
        #expect(report.counts == .init(inserted: 1_000, updated: 2, deleted: 200, unchanged: 398))
        #expect(Self.summary(report) == Self.summary(expected))
        #expect(try Self.contents(streamed) == Self.contents(reference))
        #expect(report.inputHighWaterBytes > 0 && report.inputHighWaterBytes <= 2 * (64 << 10))
    }

    /// A problem after the array at the path (a repeated key of the object around it, a
    /// trailing comma, a path key given twice) is found before anything is written, with the
    /// one-batch import's error.
    @Test(arguments: [#", "links": {}, "links": 1}"#, #", "links": {},}"#, #", "data": []}"#, #"} x"#, #", "links": {"a" 1}}"#])
    func aProblemAfterTheWrappedArrayWritesNothing(_ tail: String) throws {
        let directory = try TemporaryDirectory()
        let (streamed, reference) = try Self.twins(directory, seed: Self.items(1...10))
        let text = #"{"data": \#(Self.items(1...450, renamed: [3]))\#(tail)"#
        var options = Self.small()
        options.path = ["data"]
        let head = streamed.headSequence
        let result = try Self.streamedImport(text, into: streamed, directory: directory, options: options)
        let expected = Self.referenceImport(text, into: reference, options: options)
        guard case .failure(let error) = result, case .failure(let expectedError) = expected else {
            Issue.record("\(tail) was accepted")
            return
        }
        #expect(error.description == expectedError.description)
        #expect(streamed.headSequence == head)
    }

    /// A streamed import merges its changes into the snapshot at a quarter of the store's
    /// merge interval, so the states it holds in memory stay those of a few batches whatever
    /// the store's size; the records end as the one-batch import leaves them.
    @Test func aStreamedImportHoldsAQuarterOfTheMergeInterval() throws {
        let directory = try TemporaryDirectory()
        var options = StoreOptions()
        options.mergeInterval = 400
        let streamed = try makeImportStore(in: directory, name: "streamed", options: options)
        let reference = try makeImportStore(in: directory, name: "reference")
        let text = Self.items(1...2_000)
        let report = try Self.streamedImport(text, into: streamed, directory: directory, options: Self.small()).get()
        _ = try Self.referenceImport(text, into: reference, options: ImportOptions()).get()
        #expect(report.counts == .init(inserted: 2_000))
        // A merge starts at 100 changes; at 200 the import waits for it; a batch is 100.
        #expect(streamed.inMemoryHighWater > 0)
        #expect(streamed.inMemoryHighWater <= 300, "held \(streamed.inMemoryHighWater) states")
        #expect(streamed.mergeIntervalOverride == nil)
        #expect(try Self.contents(streamed) == Self.contents(reference))
        #expect(try StoreVerifier(path: streamed.path).verify().isClean)
    }

    /// The progress a streamed import reports: the input checked, in bytes of the file, then
    /// the records written, up to the total the first pass found.
    @Test func aStreamedImportReportsItsProgress() throws {
        let directory = try TemporaryDirectory()
        let store = try makeImportStore(in: directory)
        let text = Self.items(1...1_000)
        let events = Mutex<[WorkProgress]>([])
        var options = Self.small()
        options.progress = { progress in events.withLock { $0.append(progress) } }
        let report = try Self.streamedImport(text, into: store, directory: directory, options: options).get()
        #expect(report.counts == .init(inserted: 1_000))
        let all = events.withLock { $0 }
        let checking = all.filter { $0.task == "checking input" }
        let writing = all.filter { $0.task == "writing" }
        #expect(checking.count == 10 && writing.count == 10)
        #expect(checking.allSatisfy { $0.total == text.utf8.count && $0.unit == .bytes })
        #expect(checking.map(\.done) == checking.map(\.done).sorted() && (checking.last?.done ?? 0) > text.utf8.count / 2)
        #expect(writing.map(\.done) == Array(stride(from: 100, through: 1_000, by: 100)))
        #expect(writing.allSatisfy { $0.total == 1_000 })
        // Checking comes first, writing after.
        #expect(all.firstIndex { $0.task == "writing" } == checking.count)
    }

    /// A batch ends at a byte budget as well as at a count, so large items make smaller batches
    /// and the memory a batch takes stays flat whatever the items' size: 8,192 items of 8 KB
    /// each (a 2 GB import) peaked at 300 MB with a count alone.
    @Test func largeItemsMakeSmallerBatches() throws {
        let directory = try TemporaryDirectory()
        let (streamed, reference) = try Self.twins(directory, seed: "[]")
        let text = Self.items(1...300)
        let events = Mutex<[WorkProgress]>([])
        var options = ImportOptions()
        options.streamChunkBytes = 4 << 10
        options.streamBatchBytes = 32 << 10
        options.progress = { progress in events.withLock { $0.append(progress) } }
        let report = try Self.streamedImport(text, into: streamed, directory: directory, options: options).get()
        #expect(report.counts == .init(inserted: 300))
        let written = events.withLock { $0 }.filter { $0.task == "writing" }.map(\.done)
        let batches = zip(written, [0] + written).map { $0 - $1 }
        // The items are about 1,290 bytes each (their ids' digits make them differ by a few): a
        // batch holds at most the budget and one window more (28 items) plus the item that
        // crossed it; 387 KB of items make at least 10 batches.
        let itemBytes = text.utf8.count / 300
        #expect(itemBytes > 1_280)
        #expect(batches.count >= 10 && batches.allSatisfy { $0 >= 1 && $0 <= ((32 << 10) + (4 << 10)) / 1_280 + 1 })
        #expect(batches.reduce(0, +) == 300)
        _ = try Self.referenceImport(text, into: reference, options: ImportOptions()).get()
        #expect(try Self.contents(streamed) == Self.contents(reference))
        #expect(try StoreVerifier(path: streamed.path).verify().isClean)
    }

    @Test func scopeOnlyAndDryRunMatchTheOneBatchImport() throws {
        let directory = try TemporaryDirectory()
        let (streamed, reference) = try Self.twins(directory, seed: Self.items(1...40))
        let text = Self.items(Array(15...60).reversed(), renamed: [20, 21, 22, 23])
        var cases: [ImportOptions] = []
        var scoped = try ImportScenario.scoped(#"team = "1""#)
        cases.append(scoped)
        scoped.operations = [.insert, .update]
        cases.append(scoped)
        var dry = ImportOptions()
        dry.isDryRun = true
        cases.append(dry)
        var onlyDelete = ImportOptions()
        onlyDelete.operations = [.delete]
        onlyDelete.allowsMassDeletion = true
        cases.append(onlyDelete)
        for (number, options) in cases.enumerated() {
            var streamedOptions = Self.small(options)
            streamedOptions.streamBatchItems = 7
            let report = try Self.streamedImport(text, into: streamed, directory: directory, options: streamedOptions).get()
            let expected = try Self.referenceImport(text, into: reference, options: options).get()
            #expect(Self.summary(report) == Self.summary(expected), "case \(number)")
            #expect(try Self.contents(streamed) == Self.contents(reference), "case \(number)")
        }
    }

    /// A problem in the last batch, found after many batches: nothing is written, and the
    /// error is the one-batch import's.
    @Test(arguments: [
        #"{"id": {"not": "an id"}, "name": "x"}"#,  // an unusable id
        #"{"id": 7, "name": "again"}"#,  // a repeated id, first met batches earlier
        #"{"name": "no id"}"#,  // no id
        #"{"id": 99999, "name": "x", "name": "y"}"#,  // a duplicate key
        #"{"id": 99999, "name": "truncated""#,  // the document ends inside the item
        #"{"id": 99999} x"#,  // garbage after an item
    ])
    func aBadItemLateInTheInputWritesNothing(_ bad: String) throws {
        let directory = try TemporaryDirectory()
        let (streamed, reference) = try Self.twins(directory, seed: Self.items(1...10))
        var text = Self.items(1...450, renamed: [3])
        text.removeLast(3)  // "\n]\n"
        text += ",\n" + bad + (bad.hasSuffix("\"") ? "" : "\n]")
        let head = streamed.headSequence
        let result = try Self.streamedImport(text, into: streamed, directory: directory, options: Self.small())
        let expected = Self.referenceImport(text, into: reference, options: ImportOptions())
        guard case .failure(let error) = result, case .failure(let expectedError) = expected else {
            Issue.record("\(bad) was accepted")
            return
        }
        #expect(error.description == expectedError.description)
        #expect(streamed.headSequence == head)
        #expect(try Self.contents(streamed) == Self.contents(reference))
    }

    @Test func aMassDeletionIsRefusedBeforeAnyBatchIsWritten() throws {
        let directory = try TemporaryDirectory()
        let (streamed, _) = try Self.twins(directory, seed: Self.items(1...500))
        let head = streamed.headSequence
        let text = Self.items(401...750)
        let result = try Self.streamedImport(text, into: streamed, directory: directory, options: Self.small())
        guard case .failure(.massDeletion(_, let deleting, let total, _)) = result else {
            Issue.record("expected a refusal, got \(result)")
            return
        }
        #expect(deleting == 400 && total == 500)
        #expect(streamed.headSequence == head)
    }

    /// An input whose items nest records of their own is read whole and imported in one batch.
    @Test func linkedItemsKeepTheOneBatchImport() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        let input = #"[{"id": 1, "first_name": "Ana", "company": {"id": 7, "name": "Acme"}}]"#
        var options = Self.small()
        options.streamBatchItems = 1
        let report = try Self.streamedImport(input, into: store, directory: directory, options: options).get()
        #expect(report.inputHighWaterBytes == 0)
        #expect(report.countsByEntity[try EntityName("Company")] == .init(inserted: 1))
    }
}
