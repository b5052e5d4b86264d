import Testing
import Foundation
import FerryTestSupport
@testable import Ferry

/// A batch is all or nothing even when a crash persists only some of its lines.
@Suite struct BatchAtomicityTests {
    let notes = try! EntityName("Note")

    func lines(_ path: String) throws -> [String] {
        let journal = path + "/journal"
        var all: [String] = []
        for name in try FileSystem.contents(ofDirectory: journal).map(\.name).sorted() {
            all += String(decoding: try FileSystem.readFile(journal + "/" + name), as: UTF8.self)
                .split(separator: "\n").map(String.init)
        }
        return all
    }

    @Test func batchCutShortByACrashIsDroppedWhole() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try Store.create(at: path)
        try store.put(["single": true], entity: notes, id: RecordID("before"))
        let writes = try (0..<5).map { RecordWrite.put(RecordKey(entity: notes, id: try RecordID("b\($0)")), ["n": .integer(Int64($0))]) }
        try store.write(writes)
        store.close()
        // Keep the first entry and three of the batch's five lines, as a crash might.
        let kept = try lines(path).prefix(4)
        let segment = try FileSystem.contents(ofDirectory: path + "/journal").map(\.name).sorted()[0]
        try FileSystem.writeFileAtomically(path + "/journal/" + segment, Array((kept.joined(separator: "\n") + "\n").utf8), durable: false)

        let warnings = WarningLog()
        var options = StoreOptions()
        options.warningHandler = { warnings.append($0) }
        let reopened = try Store.open(at: path, options: options)
        #expect(reopened.headSequence == 1)
        #expect(try reopened.get(entity: notes, id: RecordID("before")) == ["single": true])
        for index in 0..<5 { #expect(try reopened.get(entity: notes, id: RecordID("b\(index)")) == nil) }
        #expect(warnings.lines.contains { $0.contains("incomplete batch") })
        #expect(try lines(path).count == 1)
        // The store goes on normally.
        try reopened.write(writes)
        #expect(reopened.headSequence == 6)
    }

    /// A batch that filled a segment file and was cut as it opened the next one (left empty):
    /// the whole batch goes, not only what the empty file would have held. A pull killed there
    /// once kept 4,096 entries the index did not apply, and the next pull journaled them again.
    @Test func batchCutJustAfterItOpenedANewSegmentIsDroppedWhole() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try Store.create(at: path)
        try store.put(["single": true], entity: notes, id: RecordID("before"))
        let count = Journal.segmentEntryLimit + 10
        try store.write((0..<count).map { RecordWrite.put(RecordKey(entity: notes, id: try RecordID("b\($0)")), ["n": .integer(Int64($0))]) })
        store.close()
        let segments = try FileSystem.contents(ofDirectory: path + "/journal").map(\.name).sorted()
        #expect(segments.count == 2)
        // The second segment opened, and nothing written to it yet.
        try FileSystem.writeFileAtomically(path + "/journal/" + segments[1], [], durable: false)

        let warnings = WarningLog()
        var options = StoreOptions()
        options.warningHandler = { warnings.append($0) }
        let reopened = try Store.open(at: path, options: options)
        #expect(reopened.headSequence == 1)
        #expect(reopened.recordCount == 1)
        #expect(try reopened.get(entity: notes, id: RecordID("b0")) == nil)
        #expect(warnings.lines.contains { $0.contains("incomplete batch") }, "\(warnings.lines)")
        try reopened.put(["after": true], entity: notes, id: RecordID("after"))
        #expect(reopened.headSequence == 2)
    }

    @Test func batchEntriesCarryTheirPosition() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        try store.write(try (0..<3).map { RecordWrite.put(RecordKey(entity: notes, id: try RecordID("b\($0)")), ["n": 1]) })
        let entries = try store.journalEntries()
        #expect(entries.map { $0.batch?.remaining } == [2, 1, 0])
        #expect(entries.allSatisfy { $0.batch?.first == 1 && $0.computedHash() == $0.hash })
        try store.put(["x": 1], entity: notes)
        #expect(try store.journalEntries().last?.batch == nil)
    }
}

final class WarningLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}

