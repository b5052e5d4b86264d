import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// One append larger than a segment and than the append's write buffer: lines are written a
/// buffer at a time and each segment is synced before the next opens. What lands must be the
/// same journal that appending the entries one batch per segment would give.
@Suite struct JournalAppendTests {
    let notes = try! EntityName("Note")

    /// A store that reads its journal after each write (a sync after each put, a watch, a
    /// server) reads what was appended, not the whole segment again, and reads it right.
    @Test func entriesAppendedAfterASegmentWasReadAreReadOnTheirOwn() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("store"))
        defer { store.close() }
        let padding = String(repeating: "y", count: 300)
        try store.write((1...400).map { .put(RecordKey(entity: notes, id: try! RecordID(String($0))), ["pad": .string(padding)]) })
        #expect(try store.journalEntry(at: 1).sequence == 1)
        let segmentSize = store.journal.segmentBytesRead
        #expect(segmentSize > 400 * 300)
        for round in 1...3 {
            try store.put(["round": .integer(Int64(round))], entity: notes, id: RecordID("r\(round)"))
            try store.put(["round": .integer(Int64(round)), "again": true], entity: notes, id: RecordID("r\(round)"))
            let head = store.head.sequence
            let before = store.journal.segmentBytesRead
            let last = try store.journalEntry(at: head)
            #expect(last.sequence == head && last.hash == store.head.hash)
            #expect(try store.journalEntry(at: head - 1).hash == last.previousHash)
            #expect(try store.journalEntry(at: 2).sequence == 2)
            let read = store.journal.segmentBytesRead - before
            #expect(read > 0 && read < 2_000, "round \(round): \(read) bytes read for two appended entries of a \(segmentSize)-byte segment")
        }
        let all = try store.journalEntries()
        #expect(all.map(\.sequence) == Array(1...store.head.sequence))
        #expect(zip(all.dropFirst(), all).allSatisfy { $0.previousHash == $1.hash })
    }

    @Test func aBatchSpanningSegmentsIsWholeAndChained() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("store")
        let store = try Store.create(at: path)
        try store.put(["first": true], entity: notes, id: RecordID("0"))
        // About 2.5 MB of lines: more than two write buffers, and three segment boundaries.
        let count = Journal.segmentEntryLimit * 2 + 900
        let padding = String(repeating: "x", count: 200)
        try store.write((1...count).map { .put(RecordKey(entity: notes, id: try! RecordID(String($0))), ["n": .integer(Int64($0)), "pad": .string(padding)]) })
        try store.put(["last": true], entity: notes, id: RecordID("after"))
        store.close()

        let segments = try FileSystem.contents(ofDirectory: path + "/journal").map(\.name).sorted()
        var lines: [Int] = []
        for segment in segments {
            let bytes = try FileSystem.readFile(path + "/journal/" + segment, limit: 64 << 20)
            #expect(bytes.last == UInt8(ascii: "\n"), "\(segment) ends with a whole line")
            lines.append(bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) })
        }
        #expect(lines.reduce(0, +) == count + 2)
        #expect(lines.allSatisfy { $0 <= Journal.segmentEntryLimit }, "\(lines)")
        #expect(segments.count == 3, "\(lines)")

        let report = try StoreVerifier(path: path).verify()
        #expect(report.isClean, "\(report.findings)")
        #expect(report.entryCount == count + 2)
        let reopened = try Store.open(at: path)
        defer { reopened.close() }
        let entries = try reopened.journalEntries()
        #expect(entries.map(\.sequence) == Array(1...UInt64(count + 2)))
        #expect(zip(entries.dropFirst(), entries).allSatisfy { $0.previousHash == $1.hash }, "every entry chains to the one before")
        #expect(try reopened.get(entity: notes, id: RecordID(String(count)))?["n"] == .integer(Int64(count)))
    }
}
