import Ferry
import FerryTestSupport
import Foundation
import Testing
@testable import FerryCommandLine

/// The progress line's text, throttling and silence, on made-up times.
@Suite struct ProgressLineTests {
    /// A clock the test moves, and what the line wrote.
    final class Terminal: @unchecked Sendable {
        private let lock = NSLock()
        private var now = 0.0
        private var written: [String] = []
        var time: Double {
            get { lock.withLock { now } }
            set { lock.withLock { now = newValue } }
        }
        var writes: [String] { lock.withLock { written } }
        func write(_ text: String) { lock.withLock { written.append(text) } }
    }

    func line(_ terminal: Terminal, enabled: Bool = true, width: Int = 120) -> ProgressLine {
        ProgressLine(
            label: "verify", isEnabled: enabled, width: width, interval: 0.25, clock: { terminal.time },
            write: { terminal.write($0) })
    }

    /// A note is its own line, shown even where no progress line is drawn, and it erases a line
    /// that is drawn, which the next update draws again (issue 52, item 4b).
    @Test func aNoteIsALineOfItsOwn() {
        let terminal = Terminal()
        let drawn = line(terminal)
        drawn.update(WorkProgress(task: "checking input", done: 5, total: 100, unit: .bytes))
        drawn.note("note: reading x.json whole")
        drawn.update(WorkProgress(task: "checking input", done: 6, total: 100, unit: .bytes))
        #expect(terminal.writes.count == 3)
        #expect(terminal.writes[1] == "\r\u{1B}[Knote: reading x.json whole\n")
        #expect(terminal.writes[2].hasPrefix("\rverify: checking input"))
        let silent = Terminal()
        line(silent, enabled: false).note("note: reading x.json whole")
        #expect(silent.writes == ["note: reading x.json whole\n"])
    }

    /// A step that reports nothing for a while is still redrawn, by the heartbeat, with how long
    /// it has been at it; the heartbeat stops with the line (issue 52, item 4b).
    @Test func aQuietStepIsRedrawnByTheHeartbeat() {
        let written = NSCondition()
        let terminal = Terminal()
        let drawn = ProgressLine(
            label: "import", isEnabled: true, width: 120, interval: 0.25, clock: { terminal.time },
            write: { text in
                written.lock()
                terminal.write(text)
                written.broadcast()
                written.unlock()
            }, heartbeat: 0.01)
        drawn.update(WorkProgress(task: "parsing", done: 0, total: 108_000_000, unit: .bytes))
        terminal.time = 5
        // Waits for the event (the redraw), bounded by a deadline, never a fixed time.
        let deadline = Date(timeIntervalSinceNow: 60)
        written.lock()
        while !terminal.writes.contains(where: { $0.contains("working, 0:05") }) && written.wait(until: deadline) {}
        written.unlock()
        #expect(terminal.writes.contains { $0 == "\rimport: parsing  0.0 MB/108.0 MB  working, 0:05\u{1B}[K" }, "\(terminal.writes)")
        drawn.finish()
        #expect(terminal.writes.last == "\r\u{1B}[K")
    }

    @Test func showsDoneTotalRateAndTimeLeft() {
        let records = WorkProgress(task: "record files", done: 250_000, total: 1_000_000, unit: .items("records"))
        #expect(
            ProgressLine.format(records, label: "verify", elapsed: 5, width: 120)
                == "verify: record files  250,000/1,000,000 records  50,000/s  0:15 left")
        let journal = WorkProgress(task: "journal", done: 12_300_000, total: 45_600_000, unit: .bytes)
        // 33.3 MB left at 6.15 MB/s: 5.4 s, shown as 0:06.
        #expect(
            ProgressLine.format(journal, label: "verify", elapsed: 2, width: 120)
                == "verify: journal  12.3 MB/45.6 MB  6.2 MB/s  0:06 left")
        // Long estimates have hours; no estimate before there is a rate, nor without a total.
        let slow = WorkProgress(task: "files", done: 1, total: 10_000, unit: .items("files"))
        #expect(ProgressLine.format(slow, label: "status", elapsed: 1, width: 120).hasSuffix("1/s  2:46:39 left"))
        #expect(ProgressLine.format(slow, label: "status", elapsed: 0.1, width: 120) == "status: files  1/10,000 files")
        let open = WorkProgress(task: "records", done: 1_500, total: nil, unit: .items("records"))
        #expect(ProgressLine.format(open, label: "export", elapsed: 3, width: 120) == "export: records  1,500 records  500/s")
    }

    @Test func theLineFitsTheTerminal() {
        let progress = WorkProgress(task: "record files", done: 250_000, total: 1_000_000, unit: .items("records"))
        let text = ProgressLine.format(progress, label: "verify", elapsed: 5, width: 30)
        #expect(text.count == 29)
        #expect(text.hasSuffix("…"))
    }

    @Test func redrawsAFewTimesPerSecondAndErasesAtTheEnd() {
        let terminal = Terminal()
        let progress = line(terminal)
        for step in 0..<10 {
            terminal.time = Double(step) * 0.1
            progress.update(WorkProgress(task: "journal", done: step * 100, total: 10_000, unit: .bytes))
        }
        // At 0, 0.3 and 0.6 (0.25 s apart at least), and 0.9.
        #expect(terminal.writes.count == 4, "\(terminal.writes)")
        #expect(terminal.writes.allSatisfy { $0.hasPrefix("\r") && $0.hasSuffix("\u{1B}[K") })
        // A new task and the end of one are shown at once.
        progress.update(WorkProgress(task: "record files", done: 1, total: 2, unit: .items("records")))
        progress.update(WorkProgress(task: "record files", done: 2, total: 2, unit: .items("records")))
        #expect(terminal.writes.count == 6)
        progress.finish()
        #expect(terminal.writes.last == "\r\u{1B}[K")
        progress.finish()
        #expect(terminal.writes.count == 7, "erased once")
    }

    @Test func silentWhenDisabled() {
        let terminal = Terminal()
        let progress = line(terminal, enabled: false)
        #expect(progress.handler == nil)
        progress.update(WorkProgress(task: "journal", done: 1, total: 2, unit: .bytes))
        progress.finish()
        #expect(terminal.writes.isEmpty)
    }

    /// A store at `<directory>/store` holding one record, `Product/lamp`; its path.
    func storeWithALamp(in directory: TemporaryDirectory) throws -> String {
        let path = directory.path + "/store"
        let store = try Store.create(at: path)
        try store.put(["name": "Lamp"], entity: EntityName("Product"), id: RecordID("lamp"))
        store.close()
        return path
    }

    @Test func verifyDrawsOnATerminalOnly() async throws {
        let directory = try TemporaryDirectory()
        let path = try storeWithALamp(in: directory)
        let piped = await runInProcess(["verify", path], commands: [VerifyCommand.self])
        #expect(piped.exitCode == .success)
        #expect(piped.stderr.isEmpty)
        let terminal = await runInProcess(["verify", path], commands: [VerifyCommand.self], stderrIsTerminal: true)
        #expect(terminal.exitCode == .success)
        #expect(terminal.stderr.contains("verify: "), "\(terminal.stderr)")
        #expect(terminal.stderr.hasSuffix("\r\u{1B}[K"))
        #expect(terminal.stdout.hasPrefix("ok: "))
        let json = await runInProcess(["verify", path, "--json"], commands: [VerifyCommand.self], stderrIsTerminal: true)
        #expect(json.stderr.isEmpty)
    }

    @Test func statusDrawsOnATerminalOnly() async throws {
        let directory = try TemporaryDirectory()
        let path = try storeWithALamp(in: directory)
        let piped = await runInProcess(["status", path], commands: [StatusCommand.self])
        #expect(piped.exitCode == .success)
        #expect(piped.stderr.isEmpty)
        let terminal = await runInProcess(["status", path], commands: [StatusCommand.self], stderrIsTerminal: true)
        #expect(terminal.stderr.contains("status: record files  1/1 records"), "\(terminal.stderr)")
        #expect(terminal.stderr.hasSuffix("\r\u{1B}[K"))
        #expect(terminal.stdout.hasPrefix("nothing to commit"))
    }

    @Test func commitDrawsTheScanOnATerminalOnly() async throws {
        let directory = try TemporaryDirectory()
        let path = try storeWithALamp(in: directory)
        try FileSystem.writeFileAtomically(path + "/records/Product/lamp.json", Array(#"{"name": "Desk lamp"}"#.utf8), durable: false)
        let terminal = await runInProcess(["commit", path], commands: [CommitCommand.self], stderrIsTerminal: true)
        #expect(terminal.exitCode == .success, "\(terminal.stderr)")
        #expect(terminal.stderr.contains("commit: record files  1/1 records"), "\(terminal.stderr)")
        #expect(terminal.stderr.hasSuffix("\r\u{1B}[K"))
        #expect(terminal.stdout.hasSuffix("committed 1 change\n"), "\(terminal.stdout)")
        let piped = await runInProcess(["commit", path], commands: [CommitCommand.self])
        #expect(piped.exitCode == .success)
        #expect(piped.stderr.isEmpty, "\(piped.stderr)")
        #expect(piped.stdout == "nothing to commit\n", "\(piped.stdout)")
    }

    @Test func syncDrawsThePhaseWithARateOnATerminalOnly() async throws {
        let directory = try TemporaryDirectory()
        let source = directory.path + "/a"
        let store = try Store.create(at: source)
        for index in 0..<20 { try store.put(["n": .integer(Int64(index))], entity: EntityName("Product"), id: RecordID("p\(index)")) }
        store.close()
        for name in ["b", "c", "d"] { try Store.create(at: directory.path + "/" + name).close() }
        let piped = await runInProcess(["sync", directory.path + "/b", source], commands: [SyncCommand.self])
        #expect(piped.stderr.isEmpty, "\(piped.stderr)")
        let terminal = await runInProcess(["sync", directory.path + "/c", source], commands: [SyncCommand.self], stderrIsTerminal: true)
        #expect(terminal.exitCode == .success, "\(terminal.stderr)")
        #expect(terminal.stderr.contains("sync: pulling"), "\(terminal.stderr)")
        #expect(terminal.stderr.contains("changes"), "\(terminal.stderr)")
        #expect(terminal.stderr.hasSuffix("\r\u{1B}[K"))
        let json = await runInProcess(["sync", directory.path + "/d", source, "--json"], commands: [SyncCommand.self], stderrIsTerminal: true)
        #expect(json.stderr.isEmpty, "\(json.stderr)")
    }

    @Test func compactDrawsTheArchiveAndTheCurrentVersionsOnATerminalOnly() async throws {
        let directory = try TemporaryDirectory()
        func makeStore(_ name: String) throws -> String {
            let path = directory.path + "/" + name
            let store = try Store.create(at: path)
            for index in 0..<5 { try store.put(["n": .integer(Int64(index))], entity: EntityName("Note"), id: RecordID("n\(index)")) }
            store.close()
            return path
        }
        let piped = await runInProcess(["compact", try makeStore("a"), "--keep", "0"], commands: [CompactCommand.self])
        #expect(piped.exitCode == .success, "\(piped.stderr)")
        #expect(piped.stderr.isEmpty, "\(piped.stderr)")
        #expect(piped.stdout.contains(" bytes) older than"), "\(piped.stdout)")
        let terminal = await runInProcess(["compact", try makeStore("b"), "--keep", "0"], commands: [CompactCommand.self], stderrIsTerminal: true)
        #expect(terminal.exitCode == .success, "\(terminal.stderr)")
        #expect(terminal.stderr.contains("compact: archive"), "\(terminal.stderr)")
        #expect(terminal.stderr.contains("compact: current versions  5/5 entries"), "\(terminal.stderr)")
        #expect(terminal.stderr.hasSuffix("\r\u{1B}[K"))
        #expect(terminal.stdout.hasPrefix("archived 1 segment (5 entries"), "\(terminal.stdout)")
        let json = await runInProcess(["compact", try makeStore("c"), "--keep", "0", "--json"], commands: [CompactCommand.self], stderrIsTerminal: true)
        #expect(json.stderr.isEmpty, "\(json.stderr)")
    }
}
