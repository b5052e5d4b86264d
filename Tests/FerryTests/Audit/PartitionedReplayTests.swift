import FerryTestSupport
import Foundation
import Synchronization
import Testing
@testable import Ferry

/// Verify replays the journal one partition of records at a time from temporary files, so its
/// memory does not grow with the store; what it finds must not depend on the partitions.
@Suite struct PartitionedReplayTests {
    let fixture: AuditFixture

    init() throws { fixture = try AuditFixture() }

    /// A closed store of `count` products written in one batch, then edits of a few.
    func makeStore(count: Int) throws -> Store {
        let store = try fixture.create("laptop")
        let writes = (0..<count).map { index in
            RecordWrite.put(RecordKey(entity: fixture.products, id: try! RecordID("p\(index)")), ["name": .string("product \(index)"), "n": .integer(Int64(index))])
        }
        _ = try store.write(writes)
        try fixture.put(store, ["name": "changed"], nil, "p7")
        try fixture.delete(store, nil, "p8")
        store.close()
        return store
    }

    @Test func theReplayHoldsOnePartitionAtATime() throws {
        let store = try makeStore(count: 300)
        var scan = JournalScan(layout: store.layout)
        scan.recordsPerPartition = 50
        scan.run()
        #expect(scan.spill.partitionCount == 6)
        let chain = JournalChainAnalysis.Result(
            findings: [], isContiguous: true, genuine: [:], lastSequence: UInt64(scan.lineCount), firstSequence: 1)
        let outcome = PartitionedReplay(layout: store.layout, scan: scan, chain: chain, checksRecordFiles: true).run()
        #expect(outcome.liveRecordCount == 299)
        #expect(outcome.indexFindings.isEmpty, "\(outcome.indexFindings)")
        #expect(outcome.recordFileFindings.isEmpty, "\(outcome.recordFileFindings)")
        // Six partitions of about 50: far fewer than the 300 records at once.
        #expect(outcome.mostRecordsHeld > 0 && outcome.mostRecordsHeld < 100, "held \(outcome.mostRecordsHeld)")
    }

    /// The partitions are hashes of the records' keys; reading their files partition by
    /// partition reads the folder at random (504 s for a million files, caches cold, in the
    /// scale benchmark). The files are read in the order of their inode numbers instead.
    @Test func recordFilesAreReadInInodeOrder() throws {
        let store = try makeStore(count: 300)
        var scan = JournalScan(layout: store.layout)
        scan.recordsPerPartition = 50
        scan.run()
        let chain = JournalChainAnalysis.Result(
            findings: [], isContiguous: true, genuine: [:], lastSequence: UInt64(scan.lineCount), firstSequence: 1)
        let inodes = Mutex<[UInt64]>([])
        var replay = PartitionedReplay(layout: store.layout, scan: scan, chain: chain, checksRecordFiles: true)
        // Ranges of about 64 files: five, each small enough to be read on one thread, in order.
        replay.fileReading.batchSize = 64
        replay.fileReading.read = { path in
            var info = stat()
            if stat(path, &info) == 0 { inodes.withLock { $0.append(UInt64(info.st_ino)) } }
            return RecordFileCheck.read(path)
        }
        let outcome = replay.run()
        #expect(outcome.recordFileFindings.isEmpty, "\(outcome.recordFileFindings)")
        let read = inodes.withLock { $0 }
        // Each live record's file read once, and no file again: their fingerprints matched.
        #expect(read.count == 299)
        #expect(Set(read).count == 299)
        #expect(read == read.sorted(), "read out of inode order")
        // The partitions' order is another: without the sort the reads would jump about.
        var byPartition: [(partition: Int, inode: UInt64)] = []
        for id in 0..<300 where id != 8 {
            let key = RecordKey(entity: fixture.products, id: try RecordID("p\(id)"))
            var info = stat()
            #expect(stat(store.layout.recordFile(key), &info) == 0)
            byPartition.append((scan.spill.partitioning.partition(of: key), UInt64(info.st_ino)))
        }
        #expect(byPartition.sorted { $0.partition < $1.partition }.map(\.inode) != read)
    }

    /// A file whose fingerprint does not match is read again and compared in full.
    @Test func aFileThatDiffersIsReadAgain() throws {
        let store = try makeStore(count: 100)
        let edited = store.layout.records + "/Product/p3.json"
        try Data(#"{"name":"edited"}"#.utf8).write(to: URL(fileURLWithPath: edited))
        var scan = JournalScan(layout: store.layout)
        scan.run()
        let chain = JournalChainAnalysis.Result(
            findings: [], isContiguous: true, genuine: [:], lastSequence: UInt64(scan.lineCount), firstSequence: 1)
        let reads = Mutex<[String]>([])
        var replay = PartitionedReplay(layout: store.layout, scan: scan, chain: chain, checksRecordFiles: true)
        replay.fileReading.read = { path in
            reads.withLock { $0.append(path) }
            return RecordFileCheck.read(path)
        }
        let outcome = replay.run()
        #expect(outcome.recordFileFindings.map(\.path) == ["records/Product/p3.json"])
        #expect(outcome.recordFileFindings.first?.kind == .modifiedRecordFile)
        #expect(reads.withLock { $0 }.count == 99)
    }

    @Test func everyKindOfFindingIsTheSameInPartitions() throws {
        let store = try makeStore(count: 120)
        let folder = store.layout.records + "/Product"
        // A hand edit, a deleted file, a file for a deleted record, a file for no record, a
        // stray name, and a stale index line.
        try Data(#"{"name":"edited"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/p3.json"))
        try FileManager.default.removeItem(atPath: folder + "/p4.json")
        try Data(#"{"name":"back"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/p8.json"))
        try Data(#"{"name":"new"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/fresh.json"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        var lines = try String(contentsOfFile: store.layout.index, encoding: .utf8).components(separatedBy: "\n")
        let index = try #require(lines.firstIndex { $0.hasPrefix("K\tProduct\tp50\t") })
        var fields = lines[index].components(separatedBy: "\t")
        fields[3] = "999"
        lines[index] = fields.joined(separator: "\t")
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: store.layout.index))

        let report = try verifyInPartitions(at: store.path)
        let kinds = report.findings.map { "\($0.kind) \($0.record?.id.rawValue ?? $0.path)" }
        #expect(kinds.contains("indexMismatch p50"), "\(kinds)")
        #expect(kinds.contains("modifiedRecordFile p3"), "\(kinds)")
        #expect(kinds.contains("missingRecordFile p4"), "\(kinds)")
        #expect(kinds.contains("fileOfDeletedRecord p8"), "\(kinds)")
        #expect(kinds.contains("unexpectedRecordFile fresh"), "\(kinds)")
        #expect(kinds.contains("strayFile records/Product/notes.txt"), "\(kinds)")
        #expect(report.findings.count == 6, "\(kinds)")
        #expect(report.recordCount == 119)
    }

    @Test func spilledRecordsComeBackInOrderAcrossFlushes() {
        let spill = SpillPartitions(count: 3, bufferLimit: 100)
        var expected: [[[UInt8]]] = [[], [], []]
        for index in 0..<2000 {
            let record = (0..<(index % 37)).map { UInt8(truncatingIfNeeded: $0 &+ index) }
            spill.append(to: index % 3) { $0 += record }
            expected[index % 3].append(record)
        }
        for partition in 0..<3 {
            var read: [[UInt8]] = []
            spill.forEachRecord(in: partition) { read.append(Array($0)) }
            #expect(read == expected[partition])
        }
        spill.discard(1)
        var left = 0
        spill.forEachRecord(in: 1) { _ in left += 1 }
        #expect(left == 0)
    }

    @Test func withoutATemporaryFolderRecordsStayInMemory() {
        let spill = SpillPartitions(count: 2, bufferLimit: 16, directory: "/nonexistent-ferry-folder")
        for index in 0..<100 { spill.append(to: index % 2) { $0.appendLittleEndian(UInt64(index)) } }
        var read: [UInt64] = []
        spill.forEachRecord(in: 0) { raw in
            var reader = LittleEndianReader(raw)
            read.append(reader.uint64())
        }
        #expect(read == Array(stride(from: 0, to: 100, by: 2)))
    }
}
