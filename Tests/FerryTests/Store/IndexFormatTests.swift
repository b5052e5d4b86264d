import Testing
import Foundation
import FerryTestSupport
@testable import Ferry

/// The index files' format (docs/FORMAT.md, "Index image"), held by the one reader and writer in
/// `Store/Index/`: a store's `.ferry/index` and `.ferry/index-delta` decode and encode back to
/// the same bytes, `ferry verify`'s reader sees the same header as the store's, and a small
/// index is written exactly as the spec shows it.
@Suite struct IndexFormatTests {
    let notes = try! EntityName("Note")
    let users = try! EntityName("User")

    private func key(_ entity: EntityName, _ id: String) -> RecordKey { RecordKey(entity: entity, id: try! RecordID(id)) }

    /// Decodes every line of the file at `path` and encodes it again with the one encoder.
    private func reencoded(_ path: String, level: IndexFileLevel) throws -> (original: [UInt8], reencoded: [UInt8], file: IndexFile) {
        let original = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let file = try #require(try IndexFile.open(path, level: level))
        let numbers = Dictionary(file.header.replicas.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        var records: [(RecordKey, RecordState)] = []
        file.forEachRecord { records.append(($0, $1)) }
        #expect(file.damage == nil)
        var bytes = Array(file.header.text(level: level).utf8)
        for (key, state) in records {
            bytes += IndexRecordLine.encode(key, state, number: { numbers[$0] ?? 0 })
        }
        bytes += IndexFileHeader.trailer(recordCount: records.count)
        return (original, bytes, file)
    }

    /// Both readers of a header (the store's and `ferry verify`'s) read the same values.
    private func expectSameHeader(_ path: String, level: IndexFileLevel, as file: IndexFile) throws {
        let text = try IndexFileText(reading: path, path: FileSystem.lastComponent(of: path), level: level)
        #expect(text.head == file.header.head)
        #expect(text.replicas == file.header.replicas)
        #expect(text.knowledge == file.header.knowledge)
        #expect(text.liveCounts == file.header.liveCounts)
        #expect(text.conflicted == file.header.conflicted)
        #expect(text.recordCount == file.header.recordCount)
        #expect(text.totalRecords == file.header.totalRecords)
        #expect(text.baseHead?.sequence == file.header.baseHead?.sequence)
        #expect(text.baseHead?.hash == file.header.baseHead?.hash)
    }

    @Test func aStoresIndexFilesRoundTripThroughTheReaderAndTheWriter() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        var options = StoreOptions()
        options.imageInterval = 1_000
        let store = try Store.create(at: path, options: options)
        try store.write((0..<120).map { .put(key(notes, "n\($0)"), ["v": .integer(Int64($0)), "text": "a \"quoted\"\tline"]) })
        try store.write([.put(key(users, "ü with spaces"), ["name": "Zoë"]), .delete(key(notes, "n3"))])
        try store.writeIndexImage()
        try store.write((0..<15).map { .put(key(notes, "n\($0 * 5)"), ["v": 1]) } + [.delete(key(notes, "n8")), .put(key(users, "u2"), ["name": "Al"])])
        store.close()
        let image = path + "/.ferry/index"
        let delta = path + "/.ferry/index-delta"
        #expect(FileSystem.exists(delta), "the close leaves a delta over the image")

        let imageRound = try reencoded(image, level: .image)
        #expect(imageRound.file.header.recordCount == 121)
        #expect(imageRound.reencoded == imageRound.original, "decoding and encoding .ferry/index gives its bytes")
        try expectSameHeader(image, level: .image, as: imageRound.file)

        let deltaRound = try reencoded(delta, level: .delta)
        #expect(deltaRound.file.header.totalRecords == 122)
        #expect(deltaRound.file.header.baseHead?.sequence == imageRound.file.header.head.sequence)
        #expect(deltaRound.reencoded == deltaRound.original, "decoding and encoding .ferry/index-delta gives its bytes")
        try expectSameHeader(delta, level: .delta, as: deltaRound.file)

        // The writer copies an image it opened, unchanged, byte for byte.
        #expect(StoreIndex(image: imageRound.file).imageBytes() == imageRound.original)
    }

    /// A small index with a conflict, a delete, a file stamp and two replicas, written as
    /// docs/FORMAT.md shows it, field by field.
    @Test func anIndexImageIsWrittenAsTheFormatSays() throws {
        let first = ReplicaID.generate()
        let second = ReplicaID.generate()
        let a = key(notes, "a")
        let b = key(notes, "b")
        func change(_ origin: ReplicaID, _ counter: UInt64, _ physical: UInt64, _ key: RecordKey, _ operation: Change.Operation, _ vector: [ReplicaID: UInt64]) -> Change {
            Change(origin: origin, counter: counter, timestamp: HybridTimestamp(physical: physical, logical: 1), key: key, operation: operation, version: VersionVector(vector))
        }
        let changes = [
            change(first, 1, 1_000, a, .put(["v": 1]), [first: 1]),
            change(second, 1, 2_000, a, .put(["v": 2]), [second: 1]),
            change(first, 2, 3_000, b, .put(["v": 3]), [first: 2]),
            change(first, 3, 4_000, b, .delete, [first: 3]),
        ]
        var index = StoreIndex()
        for (offset, change) in changes.enumerated() {
            let hash = SHA256.hash(Array("entry \(offset)".utf8))
            _ = index.apply(JournalEntry(sequence: UInt64(offset + 1), change: change, previousSequenceOfRecord: 0, previousHash: .zero, hash: hash))
        }
        let stamp = FileStamp(size: 12, modificationNanoseconds: 1_700_000_000_123_456_789, inode: 42, contentHash: SHA256.hash([1]), takenAtNanoseconds: 1_700_000_002_000_000_000)
        index.records.setFile(stamp, of: a)

        let numbers = Dictionary(uniqueKeysWithValues: index.knowledge.sortedCounters.enumerated().map { ($0.element.0, $0.offset) })
        func versions(of key: RecordKey) throws -> String {
            try #require(index.records[key]).versions.map { version in
                let number = numbers[version.identity.origin]!
                let vector = version.version.sortedCounters.map { "\(numbers[$0.0]!):\($0.1)" }.joined(separator: "+")
                return "\(number),\(version.identity.counter),\(version.timestamp.physical),1,\(version.isDelete ? 1 : 0),"
                    + "\(version.contentHash.hex),\(version.sequence),\(vector)"
            }.joined(separator: ";")
        }
        let replicaLines = index.knowledge.sortedCounters.map { replica, counter in
            "R\t\(replica.rawValue)\t\(counter)\t\(index.digests[replica]!.hex)\n"
        }.joined()
        let stampText = "12,1700000000123456789,42,\(SHA256.hash([1]).hex),1700000002000000000"
        let expected = "ferry-index\t3\n"
            + "H\t4\t\(SHA256.hash(Array("entry 3".utf8)).hex)\t4000.1\n"
            + replicaLines
            + "L\tNote\t1\n"
            + "C\tNote\ta\n"
            + "N\t2\n"
            + "B\n"
            + "K\tNote\ta\t2\t\(stampText)\t\(try versions(of: a))\n"
            + "K\tNote\tb\t4\t-\t\(try versions(of: b))\n"
            + "E\t2\n"
        #expect(index.records[a]?.versions.count == 2, "the concurrent versions make a conflict")
        #expect(String(decoding: index.imageBytes(), as: UTF8.self) == expected)
    }
}
