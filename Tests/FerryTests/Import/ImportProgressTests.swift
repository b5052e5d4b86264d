import FerryTestSupport
import Synchronization
import Testing

@testable import Ferry

/// Long work talks (issue 52, item 4b): an input read whole says so before the work starts, and
/// every step of it after the parse (linking, journaling, the index, the record files) reports
/// progress as it starts and as it ends, so no step of unbounded work goes silent.
@Suite struct ImportProgressTests {
    /// What an import told: notes and progress, in the order they came.
    final class Recorder: Sendable {
        enum Event: Equatable {
            case note(String)
            case progress(WorkProgress)
        }
        let events = Mutex<[Event]>([])

        func options(_ options: ImportOptions) -> ImportOptions {
            var options = options
            options.progress = { progress in self.events.withLock { $0.append(.progress(progress)) } }
            options.readingWholeNote = { reason in self.events.withLock { $0.append(.note(reason)) } }
            return options
        }

        /// The progress of each task, in order of first report.
        var tasks: [(task: String, reports: [WorkProgress])] {
            var result: [(task: String, reports: [WorkProgress])] = []
            for case .progress(let progress) in events.withLock({ $0 }) {
                if let index = result.firstIndex(where: { $0.task == progress.task }) {
                    result[index].reports.append(progress)
                } else {
                    result.append((progress.task, [progress]))
                }
            }
            return result
        }
    }

    /// The steps of an import read whole that writes, in order.
    static let wholeImportSteps = [
        "reading input", "parsing", "converting", "comparing", "nested records", "linking", "delete rules", "checking",
        "hand edits", "journaling", "appending to the journal", "index", "record files", "writing record files",
        "confirming record files", "index file",
    ]

    @Test func aDependentInputSaysItIsReadWholeThenReportsEveryStep() throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try LinkedStreamedImportTests.twins(directory, seed: LinkedStreamedImportTests.users(1...100))
        defer { store.close() }
        // Note 50 moves to a user of a later batch: the batches depend on each other.
        let text = LinkedStreamedImportTests.users(1...200, notes: [5: [51], 150: [1500, 1501, 50]])
        let recorder = Recorder()
        let options = recorder.options(LinkedStreamedImportTests.small(wholeLimit: 1 << 30))
        let report = try LinkedStreamedImportTests.streamedImport(text, into: store, directory: directory, options: options).get()
        #expect(report.inputHighWaterBytes == 0, "read whole")

        let events = recorder.events.withLock { $0 }
        let notes = events.enumerated().compactMap { offset, event -> (Int, String)? in
            if case .note(let reason) = event { return (offset, reason) }
            return nil
        }
        #expect(notes.count == 1)
        #expect(notes.first?.1.contains("Note/50") == true, "\(notes)")
        // Said before the input is read whole: after the first pass's check, before any step of it.
        let firstWholeStep = events.firstIndex {
            if case .progress(let progress) = $0 { return progress.task == "reading input" }
            return false
        }
        #expect(notes.first.map(\.0) ?? .max < firstWholeStep ?? -1)

        let tasks = recorder.tasks
        #expect(tasks.first?.task == "checking input")
        #expect(Array(tasks.dropFirst().map(\.task)) == Self.wholeImportSteps)
        for (task, reports) in tasks.dropFirst() {
            // Each step says it starts (nothing done) and that it ended (all of it done).
            #expect(reports.first?.done == 0, "\(task): \(reports)")
            let last = reports.last
            #expect(last?.total != nil && last?.done == last?.total, "\(task): \(reports)")
        }
        let linking = tasks.first { $0.task == "linking" }?.reports.last
        #expect((linking?.total ?? 0) > 0, "the links were counted")
    }

    /// A step of many items reports in between, not only at its ends.
    @Test func aLongStepReportsAsItGoes() {
        let reports = Mutex<[WorkProgress]>([])
        var counter = ProgressCounter("linking", total: 5_000, handler: { progress in reports.withLock { $0.append(progress) } })
        for _ in 0..<5_000 { counter.advance() }
        counter.finish()
        #expect(reports.withLock { $0.map(\.done) } == [0, 1_024, 2_048, 3_072, 4_096, 5_000])
    }

    /// A streamed import is not read whole: no note.
    @Test func aStreamedImportHasNoNote() throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try LinkedStreamedImportTests.twins(directory, seed: LinkedStreamedImportTests.users(1...100))
        defer { store.close() }
        let recorder = Recorder()
        let options = recorder.options(LinkedStreamedImportTests.small())
        _ = try LinkedStreamedImportTests.streamedImport(LinkedStreamedImportTests.users(1...200), into: store, directory: directory, options: options).get()
        #expect(!recorder.events.withLock { $0 }.contains { if case .note = $0 { true } else { false } })
    }
}
