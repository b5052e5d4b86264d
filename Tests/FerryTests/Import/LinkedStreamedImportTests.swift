import FerryTestSupport
import Foundation
import Synchronization
import Testing

@testable import Ferry

/// An array of items that link records (the entity declares relationships) is imported as a
/// stream, a batch at a time, when no batch touches a record another batch writes (issue 19,
/// item 1): the result must be that of the one-batch import, every problem must be found before
/// anything is written, and an input whose batches depend on each other is read whole, or
/// refused past the whole-input limit with the reason.
@Suite struct LinkedStreamedImportTests {
    static let user = try! EntityName("User")

    /// Options that make a few hundred items many batches, and refuse to read whole an input
    /// of more than 20 KB: an import that passes with them was streamed.
    static func small(_ options: ImportOptions = ImportOptions(), wholeLimit: Int = 20_000) -> ImportOptions {
        var options = options
        options.streamChunkBytes = 16 << 10
        options.streamBatchItems = 25
        options.maximumListedChanges = .max
        options.maximumInputBytes = wholeLimit
        return options
    }

    /// Users of the sample schema (a company by id; ordered notes, nested): user `n` works at
    /// company `n % 3 + 1` and has notes `10n` and `10n + 1`, unless `company` (the members
    /// that link it) or `notes` says otherwise; `extra` adds members.
    static func users(
        _ ids: some Sequence<Int>, renamed: Set<Int> = [], notes: [Int: [Int]] = [:], company: [Int: String] = [:],
        extra: [Int: String] = [:]
    ) -> String {
        "[\n" + ids.map { id in
            let name = "User \(id)\(renamed.contains(id) ? " (renamed)" : "")"
            let noteItems = (notes[id] ?? [10 * id, 10 * id + 1]).map { #"{"id": \#($0), "text": "note \#($0) of \#(id)"}"# }
            let link = company[id] ?? #""company_id": \#(id % 3 + 1)"#
            return #"  {"id": \#(id), "first_name": "\#(name)", "email": "u\#(id)@example.com", \#(link), "#
                + #""notes": [\#(noteItems.joined(separator: ", "))]\#(extra[id] ?? "")}"#
        }.joined(separator: ",\n") + "\n]\n"
    }

    /// Two stores with the sample schema (or `schema`), three companies, and `seed` imported
    /// into User the one-batch way.
    static func twins(
        _ directory: TemporaryDirectory, seed: String, schema: String? = nil, options: StoreOptions = StoreOptions()
    ) throws -> (streamed: Store, reference: Store) {
        let schema = try schema ?? SampleFiles.text("schema.json")
        var stores: [Store] = []
        for name in ["streamed", "reference"] {
            let store = try makeImportStore(in: directory, name: name, schema: schema, options: options)
            _ = try store.importRecords(try JSONParser.parse(#"[{"id": 1, "name": "A"}, {"id": 2, "name": "B"}, {"id": 3, "name": "C"}]"#), into: EntityName("Company"))
            _ = try store.importRecords(try JSONParser.parse(seed), into: Self.user)
            stores.append(store)
        }
        return (stores[0], stores[1])
    }

    /// The one-batch import: the text parsed whole, then imported as a value.
    static func referenceImport(_ text: String, into store: Store, options: ImportOptions) -> Result<ImportReport, ImportError> {
        StreamedImportTests.referenceImport(text, into: store, options: options)
    }

    /// The import of `text` from a file, streamed when it can be.
    static func streamedImport(
        _ text: String, into store: Store, directory: TemporaryDirectory, options: ImportOptions
    ) throws -> Result<ImportReport, ImportError> {
        try StreamedImportTests.streamedImport(text, into: store, directory: directory, options: options)
    }

    /// What a report says, without how it was read or written: the changes in a batch's order
    /// differ from the one batch's, so they are sorted.
    static func summary(_ report: ImportReport) -> [String] {
        [
            "\(report.countsByEntity.sorted { $0.key < $1.key })", "\(report.withheld)", "\(report.refusals)",
            "\(report.skipped)", "\(report.missingTargets)", "\(report.isDryRun)", "\(report.handEdits)",
        ] + report.changes.map { "\($0.kind) \($0.key) \($0.changedKeys)" }.sorted()
    }

    /// Every live record of every entity, with its document.
    static func contents(_ store: Store) throws -> [String: JSONValue] {
        var contents: [String: JSONValue] = [:]
        for entity in ["User", "Company", "Note", "Tag"] {
            for id in try store.idTexts(entity) { contents["\(entity)/\(id)"] = try store.document(entity, id) }
        }
        return contents
    }

    /// With the sample schema, a user's notes are a list on the user (`notesIDs`, ordered);
    /// with the scenario schema, only the notes name their user (`userID`): the user's notes are
    /// found through the shared back-link index, one bucket per user.
    @Test(arguments: [false, true])
    func linkedItemsAreStreamedAndEndAsTheOneBatchImport(_ derivedNotes: Bool) throws {
        let directory = try TemporaryDirectory()
        let schema = derivedNotes ? ImportScenario.schema : nil
        let (streamed, reference) = try Self.twins(directory, seed: Self.users(1...200), schema: schema)
        // 40 gone (their notes cascade), 30 renamed, 10 with a note less (deleted as a nested
        // child), 5 with a note more, 100 new, the rest unchanged.
        var notes: [Int: [Int]] = [:]
        for id in 61...70 { notes[id] = [10 * id] }
        for id in 71...75 { notes[id] = [10 * id, 10 * id + 1, 10 * id + 2] }
        let text = Self.users(41...300, renamed: Set(100...129), notes: notes)
        #expect(text.utf8.count > 2 * 20_000)
        let report = try Self.streamedImport(text, into: streamed, directory: directory, options: Self.small()).get()
        let expected = try Self.referenceImport(text, into: reference, options: ImportOptions()).get()
        // A user whose notes change is updated when it lists them, unchanged when they name it.
        #expect(report.counts == .init(inserted: 100, updated: derivedNotes ? 30 : 45, deleted: 40, unchanged: derivedNotes ? 130 : 115))
        #expect(report.countsByEntity[try EntityName("Note")] == .init(inserted: 205, updated: 0, deleted: 90, unchanged: 310))
        #expect(Self.summary(report) == Self.summary(expected))
        #expect(try Self.contents(streamed) == Self.contents(reference))
        // Read a window at a time, written a batch at a time (11 batches and 2 of deletes).
        #expect(report.inputHighWaterBytes > 0 && report.inputHighWaterBytes <= 2 * (16 << 10))
        #expect(report.journalEntries > 1)
        #expect(try StoreVerifier(path: streamed.path).verify().isClean)
        let again = try Self.streamedImport(text, into: streamed, directory: directory, options: Self.small()).get()
        #expect(again.counts == .init(unchanged: 260) && again.journalEntries == 0)
    }

    @Test func scopeOnlyAndDryRunMatchTheOneBatchImport() throws {
        let directory = try TemporaryDirectory()
        let (streamed, reference) = try Self.twins(directory, seed: Self.users(1...80))
        var notes: [Int: [Int]] = [:]
        for id in 30...34 { notes[id] = [] }
        let text = Self.users(Array(20...140).reversed(), renamed: Set(40...60), notes: notes)
        var cases: [ImportOptions] = []
        var scoped = try ImportScenario.scoped(#"companyID = "2""#)
        cases.append(scoped)
        scoped.operations = [.insert, .update]
        cases.append(scoped)
        var dry = ImportOptions()
        dry.isDryRun = true
        cases.append(dry)
        var onlyDelete = ImportOptions()
        onlyDelete.operations = [.delete]
        cases.append(onlyDelete)
        cases.append(ImportOptions())
        for (number, options) in cases.enumerated() {
            let report = try Self.streamedImport(text, into: streamed, directory: directory, options: Self.small(options)).get()
            let expected = try Self.referenceImport(text, into: reference, options: options).get()
            #expect(Self.summary(report) == Self.summary(expected), "case \(number)")
            #expect(try Self.contents(streamed) == Self.contents(reference), "case \(number)")
            #expect(report.inputHighWaterBytes > 0, "case \(number) was read whole")
        }
    }

    /// Inputs whose batches depend on each other: each is read whole (and so ends exactly as the
    /// one-batch import), and refused with the reason when it is larger than the whole-input limit.
    @Test(arguments: [
        // A note moved to a user of a later batch: deleted by the first, named by the second.
        ("moved", "Note/50"),
        // A company linked by id in the first batch and created, nested, by a later one.
        ("created later", "Company/9"),
        // An item whose id is given twice, far apart.
        ("repeated", "User/7"),
    ])
    func dependentBatchesAreReadWhole(_ shape: String, _ named: String) throws {
        let directory = try TemporaryDirectory()
        let (streamed, reference) = try Self.twins(directory, seed: Self.users(1...100))
        var text: String
        switch shape {
        case "moved":
            text = Self.users(1...200, notes: [5: [51], 150: [1500, 1501, 50]])
        case "created later":
            text = Self.users(1...200, company: [2: #""company_id": 9"#, 179: #""company": {"id": 9, "name": "Nine"}"#])
        default:
            text = Self.users(1...200).replacingOccurrences(of: #""id": 190, "first_name""#, with: #""id": 7, "first_name""#)
        }
        let refused = try Self.streamedImport(text, into: streamed, directory: directory, options: Self.small())
        let expected = Self.referenceImport(text, into: reference, options: ImportOptions())
        let head = streamed.headSequence
        if shape == "repeated" {
            // A repeated id is the one-batch import's error, found by the first pass.
            guard case .failure(let error) = refused, case .failure(let expectedError) = expected else {
                Issue.record("a repeated id was accepted")
                return
            }
            #expect(error.description == expectedError.description)
            #expect(streamed.headSequence == head)
            return
        }
        guard case .failure(.invalidJSON(_, _, let reason)) = refused else {
            Issue.record("\(shape): expected a refusal, got \(refused)")
            return
        }
        #expect(reason.contains("read whole because") && reason.contains(named), "\(reason)")
        #expect(streamed.headSequence == head)
        let report = try Self.streamedImport(text, into: streamed, directory: directory, options: Self.small(wholeLimit: 1 << 30)).get()
        #expect(report.inputHighWaterBytes == 0)
        #expect(Self.summary(report) == Self.summary(try expected.get()))
        #expect(try Self.contents(streamed) == Self.contents(reference))
    }

    /// A company nested, unchanged, in the items of every batch is read by each and written by
    /// none: the input streams, and the company is counted unchanged once. Nested with a new
    /// name, every batch writes it: the input is read whole, and ends the same.
    @Test(arguments: [false, true])
    func aRecordNestedInEveryBatch(_ renamed: Bool) throws {
        let directory = try TemporaryDirectory()
        let (streamed, reference) = try Self.twins(directory, seed: Self.users(1...100))
        let name = renamed ? "Acme" : "A"
        let text = Self.users(1...150, company: Dictionary(uniqueKeysWithValues: stride(from: 1, through: 150, by: 3).map {
            ($0, #""company": {"id": 1, "name": "\#(name)"}"#)
        }))
        let report = try Self.streamedImport(text, into: streamed, directory: directory, options: Self.small(wholeLimit: 1 << 30)).get()
        let expected = try Self.referenceImport(text, into: reference, options: ImportOptions()).get()
        #expect(Self.summary(report) == Self.summary(expected))
        #expect(try Self.contents(streamed) == Self.contents(reference))
        #expect(report.countsByEntity[try EntityName("Company")] == (renamed ? .init(updated: 1) : .init(unchanged: 1)))
        #expect((report.inputHighWaterBytes > 0) == !renamed)
    }

    /// A problem found late (a document too large for the store in a middle batch, an item the
    /// converter refuses in the last) writes nothing, with the one-batch import's error: the
    /// converter's first, as when the whole input is converted before it is planned.
    @Test(arguments: [false, true])
    func aProblemLateInTheInputWritesNothing(_ badDateToo: Bool) throws {
        let directory = try TemporaryDirectory()
        var storeOptions = StoreOptions()
        storeOptions.maximumDocumentBytes = 2_000
        let (streamed, reference) = try Self.twins(directory, seed: Self.users(1...100), options: storeOptions)
        let long = String(repeating: "x", count: 3_000)
        var extra: [Int: String] = [:]
        if badDateToo { extra[195] = #", "created_at": "the day before yesterday""# }
        let text = Self.users(1...200, notes: [80: [800, 801, 802]], extra: extra)
            .replacingOccurrences(of: "note 802 of 80", with: long)
        let head = streamed.headSequence
        let result = try Self.streamedImport(text, into: streamed, directory: directory, options: Self.small(wholeLimit: 1 << 30))
        let expected = Self.referenceImport(text, into: reference, options: ImportOptions())
        guard case .failure(let error) = result, case .failure(let expectedError) = expected else {
            Issue.record("the bad item was accepted")
            return
        }
        #expect(error.description == expectedError.description)
        #expect(error.description.contains(badDateToo ? "created_at" : "Note/802"), "\(error)")
        #expect(streamed.headSequence == head)
        #expect(try Self.contents(streamed) == Self.contents(reference))
    }

    @Test func aMassDeletionIsRefusedBeforeAnyBatchIsWritten() throws {
        let directory = try TemporaryDirectory()
        let (streamed, _) = try Self.twins(directory, seed: Self.users(1...200))
        let head = streamed.headSequence
        let result = try Self.streamedImport(Self.users(150...260), into: streamed, directory: directory, options: Self.small())
        guard case .failure(.massDeletion(_, let deleting, let total, _)) = result else {
            Issue.record("expected a refusal, got \(result)")
            return
        }
        #expect(deleting == 149 && total == 200)
        #expect(streamed.headSequence == head)
    }

    /// The progress of a streamed linked import: the input checked, then the records written
    /// (users and their notes), up to the total the first pass found.
    @Test func aStreamedLinkedImportReportsItsProgress() throws {
        let directory = try TemporaryDirectory()
        let (streamed, _) = try Self.twins(directory, seed: "[]")
        let events = Mutex<[WorkProgress]>([])
        var options = Self.small()
        options.progress = { progress in events.withLock { $0.append(progress) } }
        let report = try Self.streamedImport(Self.users(1...100), into: streamed, directory: directory, options: options).get()
        #expect(report.counts == .init(inserted: 100))
        let all = events.withLock { $0 }
        let checking = all.filter { $0.task == "checking input" }
        let writing = all.filter { $0.task == "writing" }
        #expect(checking.count == 4 && writing.count == 4)
        #expect(writing.map(\.done) == [75, 150, 225, 300] && writing.allSatisfy { $0.total == 300 })
        #expect(all.firstIndex { $0.task == "writing" } == checking.count)
        // Again with one user renamed: only its batch is planned again and written.
        events.withLock { $0 = [] }
        let again = try Self.streamedImport(Self.users(1...100, renamed: [60]), into: streamed, directory: directory, options: options).get()
        #expect(again.counts == .init(updated: 1, unchanged: 99) && again.journalEntries == 1)
        #expect(events.withLock { $0 }.filter { $0.task == "writing" }.map(\.done) == [1])
    }

    /// An input of one batch is read whole, as it always was: one journal append.
    @Test func oneBatchIsReadWhole() throws {
        let directory = try TemporaryDirectory()
        let (streamed, _) = try Self.twins(directory, seed: "[]")
        var options = Self.small(wholeLimit: 1 << 30)
        options.streamBatchItems = 100
        let report = try Self.streamedImport(Self.users(1...100), into: streamed, directory: directory, options: options).get()
        #expect(report.counts == .init(inserted: 100))
        #expect(report.inputHighWaterBytes == 0 && report.journalEntries == 300)
    }
}
