import Testing
import Foundation
import FerryTestSupport
@testable import Ferry

/// Index merges on another thread (``IndexMerge``): a long run of writes merges the
/// records changed in memory into a new `.ferry/index` while it goes on writing.
@Suite struct IndexMergeTests {
    let notes = try! EntityName("Note")

    private func key(_ id: String) -> RecordKey { RecordKey(entity: notes, id: try! RecordID(id)) }

    private func options(interval: Int) -> StoreOptions {
        var options = StoreOptions()
        options.mergeInterval = interval
        return options
    }

    /// A store whose first write (150 notes, past an interval of 100) started a merge, with the
    /// merge waited for but not swapped in.
    private func storeWithFinishedMerge(at path: String) throws -> (Store, IndexMerge) {
        let store = try Store.create(at: path, options: options(interval: 100))
        try store.write((0..<150).map { .put(key("n\($0)"), ["v": 0]) })
        let merge = try #require(store.indexMerge, "150 changes past an interval of 100 start a merge")
        _ = merge.wait()
        return (store, merge)
    }

    /// Every record `expected` names has that document, and no other note is live.
    private func expectRecords(_ store: Store, _ expected: [String: JSONValue]) throws {
        for (id, document) in expected {
            #expect(try store.get(entity: notes, id: RecordID(id)) == document, "\(id)")
        }
        #expect(Set(try store.ids(of: notes).map(\.rawValue)) == Set(expected.keys))
    }

    /// Writes notes `n<id>` holding `round`, and records them in `expected`.
    private func writeRound(_ ids: Range<Int>, _ round: Int, to store: Store, expecting expected: inout [String: JSONValue]) throws {
        try store.write(ids.map { .put(key("n\($0)"), ["round": .integer(Int64(round))]) })
        for id in ids { expected["n\(id)"] = ["round": .integer(Int64(round))] }
    }

    private func inode(_ file: String) -> UInt64? { (try? FileSystem.status(file))??.inode }

    /// Opened again, the store at `path` has `expected`, its files are as the index says, and
    /// verify finds nothing.
    private func expectReopenedAndVerified(_ path: String, _ expected: [String: JSONValue]) throws {
        let store = try Store.open(at: path)
        try expectRecords(store, expected)
        #expect(try store.status().isClean)
        store.close()
        let report = try StoreVerifier(path: path).verify()
        #expect(report.isClean, "\(report.findings)")
    }

    @Test func aLongRunOfWritesMergesInTheBackgroundAndLosesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        var expected: [String: JSONValue] = [:]
        var merges = 0
        do {
            let store = try Store.create(at: path, options: options(interval: 100))
            for round in 0..<30 {
                var writes: [RecordWrite] = []
                for offset in 0..<40 {
                    let id = "n\((round * 40 + offset) % 700)"  // later rounds overwrite earlier notes
                    let document: JSONValue = ["round": .integer(Int64(round)), "offset": .integer(Int64(offset))]
                    writes.append(.put(key(id), document))
                    expected[id] = document
                }
                if round % 5 == 4, let victim = expected.keys.sorted().first {
                    writes.append(.delete(key(victim)))
                    expected[victim] = nil
                }
                try store.write(writes)
                if store.indexMerge != nil { merges += 1 }
            }
            try expectRecords(store, expected)
            try store.finishIndexMerge()
            #expect(store.imageSequence > 0)
            #expect(store.index.records.overlay.count < expected.count, "a merged image holds most records")
            try expectRecords(store, expected)
            #expect(try store.status().isClean)
            store.close()
        }
        #expect(merges > 0, "some writes must have started a merge")
        #expect(!FileSystem.exists(path + "/.ferry/index-merging"))
        try expectReopenedAndVerified(path, expected)
    }

    /// Merges write a delta while the changes (with the old delta's) are at most half the
    /// image, and keep the image; past that, a merge rewrites the image. Reads, a
    /// reopened store and verify see every record either way.
    @Test func mergesWriteDeltasUntilTheyReachHalfTheImage() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        var expected: [String: JSONValue] = [:]
        func write(_ ids: Range<Int>, round: Int, to store: Store) throws { try writeRound(ids, round, to: store, expecting: &expected) }
        do {
            let store = try Store.create(at: path, options: options(interval: 100))
            for start in stride(from: 0, to: 600, by: 50) { try write(start..<start + 50, round: 0, to: store) }
            try store.writeIndexImage()
            let image = inode(store.layout.index)
            #expect(image != nil && !FileSystem.exists(store.layout.indexDelta))
            // 100 changes (updates and new records) on 600: a merge into a delta.
            try write(550..<600, round: 1, to: store)
            try write(600..<650, round: 1, to: store)
            #expect(store.indexMerge?.level == .delta)
            try store.finishIndexMerge()
            #expect(inode(store.layout.index) == image, "the image is kept")
            #expect(store.index.records.delta?.header.recordCount == 100)
            #expect(store.index.records.inMemoryCount == 0)
            try expectRecords(store, expected)
            // 100 more, half of them in the delta already: 150 changed records, a new delta.
            try write(600..<700, round: 2, to: store)
            #expect(store.indexMerge?.level == .delta)
            try store.finishIndexMerge()
            #expect(inode(store.layout.index) == image)
            #expect(store.index.records.delta?.header.recordCount == 150, "a record in memory and the delta makes one line")
            try expectRecords(store, expected)
            // 200 more: 350 changed records, more than half of 600, so a whole new image.
            try write(0..<100, round: 3, to: store)
            try write(700..<800, round: 3, to: store)
            #expect(store.indexMerge?.level == .image)
            try store.finishIndexMerge()
            #expect(inode(store.layout.index) != image && !FileSystem.exists(store.layout.indexDelta))
            #expect(store.index.records.base?.header.recordCount == 800)
            try expectRecords(store, expected)
            // And one more delta, left for the next open to read.
            try write(100..<200, round: 4, to: store)
            try store.finishIndexMerge()
            #expect(store.index.records.delta != nil)
            #expect(try store.status().isClean)
            store.close()
        }
        try expectReopenedAndVerified(path, expected)
    }

    /// Once the delta is large, a merge writes the states into a spill of this process's own
    /// (the old spill's lines and the new states) instead of copying the whole delta, until the
    /// spill reaches half the delta; then a merge folds spill and states into a new delta.
    /// Reads, listings in id order, a status scan, the close, a reopened store, and a copy taken
    /// while a spill was in use (as a crash leaves the store) all see every record.
    @Test func mergesSpillWhileTheDeltaIsLargeAndFoldTheSpillIn() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        var expected: [String: JSONValue] = [:]
        func write(_ ids: Range<Int>, round: Int, to store: Store) throws { try writeRound(ids, round, to: store, expecting: &expected) }
        let store = try Store.create(at: path, options: options(interval: 100))
        for start in stride(from: 0, to: 2_000, by: 50) { try write(start..<start + 50, round: 0, to: store) }
        try store.writeIndexImage()
        // Two merges into the delta: 200 records changed since the image.
        try write(0..<100, round: 1, to: store)
        #expect(store.indexMerge?.level == .delta)
        try store.finishIndexMerge()
        try write(100..<200, round: 1, to: store)
        #expect(store.indexMerge?.level == .delta)
        try store.finishIndexMerge()
        let delta = inode(store.layout.indexDelta)
        #expect(store.index.records.delta?.header.recordCount == 200)

        // 100 states, half of the delta's 200: a spill, which leaves the delta as it is.
        try write(150..<250, round: 2, to: store)
        #expect(store.indexMerge?.level == .spill)
        try store.finishIndexMerge()
        #expect(store.index.records.spilledCount == 100)
        #expect(store.index.records.inMemoryCount == 0)
        #expect(inode(store.layout.indexDelta) == delta, "the delta is not rewritten")
        #expect(store.index.records.delta?.header.recordCount == 200)
        #expect(!FileSystem.exists(store.layout.indexMerging), "a spill has no name")
        try expectRecords(store, expected)
        let listed = try store.records(of: notes)
        #expect(listed.count == 2_000)
        #expect(listed.map(\.id.rawValue) == listed.map(\.id.rawValue).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(Dictionary(uniqueKeysWithValues: listed.map { ($0.id.rawValue, $0.document) }) == expected)

        // A copy now holds the image and the delta, not the spill: it replays the rest.
        let copy = directory.subpath("cut-off")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileSystem.removeFile(copy + "/.ferry/lock")
        try expectReopenedAndVerified(copy, expected)

        // The spill and 100 more states are 200, more than half the delta: a new delta.
        try write(240..<340, round: 3, to: store)
        #expect(store.indexMerge?.level == .delta)
        try store.finishIndexMerge()
        #expect(store.index.records.spilledCount == 0)
        #expect(store.index.records.delta?.header.recordCount == 340, "a record in several files makes one line")
        try expectRecords(store, expected)

        // A spill again, then writes left in memory: the close folds both into the delta.
        try write(400..<500, round: 4, to: store)
        #expect(store.indexMerge?.level == .spill)
        try store.finishIndexMerge()
        try write(450..<480, round: 5, to: store)
        #expect(store.index.records.spilledCount == 100)
        try expectRecords(store, expected)
        // (A scan confirms stamps, which count as changes: the next merge would be an image.)
        #expect(try store.status().isClean)
        store.close()
        try expectReopenedAndVerified(path, expected)
    }

    /// A delta too large to load is read a piece at a time: by lookups (through its sparse
    /// index), by a merge that writes the next delta, and by a status scan. What a record in
    /// memory says wins over its delta line, which wins over the image's.
    @Test func aDeltaTooLargeToLoadIsReadInPieces() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        var expected: [String: JSONValue] = [:]
        do {
            let store = try Store.create(at: path, options: options(interval: 100_000))
            try store.write((0..<1_000).map { .put(key("n\($0)"), ["round": 0]) })
            try store.writeIndexImage()
            try store.write((0..<60).map { .put(key("n\($0)"), ["round": 1]) })
            store.close()
        }
        for id in 0..<1_000 { expected["n\(id)"] = ["round": .integer(id < 60 ? 1 : 0)] }
        let store = try Store.open(at: path, options: options(interval: 100))
        let delta = try #require(store.index.records.delta)
        #expect(delta.header.recordCount == 60)
        delta.loadLimit = 0
        try expectRecords(store, expected)
        #expect(try store.status().isClean)
        // 100 writes, 30 of them over records in the delta: a merge into a new delta.
        try store.write((30..<130).map { .put(key("n\($0)"), ["round": 2]) })
        for id in 30..<130 { expected["n\(id)"] = ["round": 2] }
        #expect(store.indexMerge?.level == .delta)
        try store.finishIndexMerge()
        #expect(!delta.isLoaded && delta.damage == nil, "the old delta was never loaded")
        let next = try #require(store.index.records.delta)
        #expect(next.header.recordCount == 130)
        next.loadLimit = 0
        try expectRecords(store, expected)
        #expect(try store.status().isClean)
        #expect(!next.isLoaded && next.damage == nil)
        store.close()
        try expectReopenedAndVerified(path, expected)
    }

    /// A run cut off before it closed leaves the delta its merges wrote (here a copy of the
    /// store taken mid-run stands for it); the next open folds it into a new image, so no
    /// later read decodes a delta as large as half the store.
    @Test func aDeltaLeftByAnInterruptedRunIsFoldedInOnOpen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        var expected: [String: JSONValue] = [:]
        let store = try Store.create(at: path, options: options(interval: 100))
        try store.write((0..<600).map { .put(key("n\($0)"), ["round": 0]) })
        try store.writeIndexImage()
        try store.write((0..<150).map { .put(key("n\($0)"), ["round": 1]) })
        try store.finishIndexMerge()
        #expect(store.index.records.delta?.header.recordCount == 150)
        for id in 0..<600 { expected["n\(id)"] = ["round": .integer(id < 150 ? 1 : 0)] }
        let copy = directory.subpath("interrupted")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        store.close()
        try FileSystem.removeFile(copy + "/.ferry/lock")

        var reopenOptions = StoreOptions()
        reopenOptions.imageInterval = 100
        let reopened = try Store.open(at: copy, options: reopenOptions)
        #expect(reopened.index.records.delta == nil && !FileSystem.exists(copy + "/.ferry/index-delta"))
        #expect(reopened.index.records.base?.header.recordCount == 600)
        try expectRecords(reopened, expected)
        #expect(try reopened.status().isClean)
        reopened.close()
        try expectReopenedAndVerified(copy, expected)
    }

    @Test func writesMadeDuringAMergeStayInMemoryWhenItIsSwappedIn() throws {
        let directory = try TemporaryDirectory()
        let (store, merge) = try storeWithFinishedMerge(at: directory.subpath("s"))
        defer { store.close() }
        let frozenHead = merge.frozen.headSequence
        // While the merge's image waits to be swapped in: change two merged records, add one.
        try store.write([.put(key("n3"), ["v": 1]), .put(key("new"), ["v": 1]), .delete(key("n4"))])
        try store.finishIndexMerge()
        #expect(store.imageSequence == frozenHead)
        #expect(Set(store.index.records.overlay.keys) == [key("n3"), key("new"), key("n4")])
        #expect(store.index.records.count == 151)
        #expect(try store.get(entity: notes, id: RecordID("n3")) == ["v": 1])
        #expect(try store.get(entity: notes, id: RecordID("n5")) == ["v": 0])
        #expect(try store.get(entity: notes, id: RecordID("new")) == ["v": 1])
        #expect(try store.get(entity: notes, id: RecordID("n4")) == nil)
        #expect(store.recordCount == 150)
    }

    @Test func aMergeIsDroppedWhenTheImageWasReplacedMeanwhile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let (store, _) = try storeWithFinishedMerge(at: path)
        defer { store.close() }
        // Another process wrote its own image in the meantime (a new file at the path).
        let index = path + "/.ferry/index"
        let copy = try FileSystem.readFile(index, limit: 1 << 30)
        try FileSystem.removeFile(index)
        try FileSystem.writeFileAtomically(index, copy, durable: false)
        // A write while the merge waits: newer than the state handed to the merge.
        try store.write([.put(key("n3"), ["v": 1])])
        let before = store.imageSequence
        try store.finishIndexMerge()
        #expect(store.imageSequence == before, "the merged image must not replace the other process's")
        #expect(try FileSystem.readFile(index, limit: 1 << 30) == copy)
        #expect(!FileSystem.exists(path + "/.ferry/index-merging"))
        // The states handed to the dropped merge are back in memory, the newer write on top.
        #expect(store.index.records.merging == nil)
        #expect(store.index.records.overlay.count == 150)
        #expect(try store.get(entity: notes, id: RecordID("n149")) == ["v": 0])
        #expect(try store.get(entity: notes, id: RecordID("n3")) == ["v": 1])
        store.close()
        let reopened = try Store.open(at: path)
        defer { reopened.close() }
        #expect(reopened.recordCount == 150)
        #expect(try reopened.get(entity: notes, id: RecordID("n3")) == ["v": 1])
        #expect(try reopened.get(entity: notes, id: RecordID("n149")) == ["v": 0])
    }

    @Test func aMergeTakesTheStatesInMemoryWithoutCopyingThem() throws {
        let directory = try TemporaryDirectory()
        let (store, merge) = try storeWithFinishedMerge(at: directory.subpath("s"))
        defer { store.close() }
        // The merge holds the 150 states; the store reads them through `merging`, and a state
        // set meanwhile goes on top.
        #expect(store.index.records.overlay.isEmpty)
        #expect(store.index.records.merging?.count == 150)
        #expect(merge.frozen.records.overlay.count == 150)
        #expect(store.index.records[key("n8")]?.isLive == true)
        let n9 = try #require(store.index.records[key("n9")])
        store.index.records[key("n9")] = n9
        #expect(Array(store.index.records.overlay.keys) == [key("n9")])
        #expect(store.index.records.count == 150, "a record handed to the merge is not counted again")
        store.index.records.replaceExisting(key("n9"), with: n9)
        // The next write swaps the finished merge in: memory keeps what changed since.
        try store.write([.put(key("n7"), ["v": 7])])
        #expect(store.indexMerge == nil)
        #expect(store.index.records.merging == nil)
        #expect(Set(store.index.records.overlay.keys) == [key("n7"), key("n9")])
        #expect(try store.get(entity: notes, id: RecordID("n7")) == ["v": 7])
        #expect(try store.get(entity: notes, id: RecordID("n8")) == ["v": 0])
    }

    @Test func closingWaitsForTheMergeAndTheNextOpenReadsNoJournal() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        do {
            let store = try Store.create(at: path, options: options(interval: 100))
            try store.write((0..<150).map { .put(key("n\($0)"), ["v": .integer(Int64($0))]) })
            #expect(store.indexMerge != nil)
            store.close()
        }
        let image = try #require(try IndexFile.open(path + "/.ferry/index"))
        #expect(image.header.head.sequence == 150, "the merged image was swapped in at close")
        let store = try Store.open(at: path)
        defer { store.close() }
        #expect(store.recordCount == 150)
        #expect(try store.get(entity: notes, id: RecordID("n42")) == ["v": 42])
    }

    @Test func anImageTooLargeToLoadIsLookedUpThroughItsSparseIndex() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        do {
            let store = try Store.create(at: path, options: options(interval: 100))
            try store.write((0..<3_000).map { .put(key("n\($0)"), ["v": .integer(Int64($0)), "pad": .string(String(repeating: "x", count: $0 % 50))]) })
            store.close()
        }
        // The same file twice: one loaded whole for lookups as before, one through blocks.
        let loaded = try #require(try IndexFile.open(path + "/.ferry/index"))
        let sparse = try #require(try IndexFile.open(path + "/.ferry/index"))
        sparse.loadLimit = 0
        var keys = (0..<3_000).map { key("n\($0)") }
        keys += ["", "m", "n", "n0x", "n2999", "n3000", "o", "zzz"].map { key($0.isEmpty ? "a" : $0) }
        keys.shuffle()
        for (count, lookup) in keys.enumerated() {
            // Past the first 256 lookups both switch to their fast form.
            #expect(sparse.lookup(lookup) == loaded.lookup(lookup), "lookup \(count) of \(lookup)")
        }
        #expect(sparse.lookup(key("n1234"))?.versions.count == 1)
        #expect(sparse.lookup(key("n3001")) == nil)
        #expect(sparse.damage == nil)
        #expect(loaded.isLoaded && !sparse.isLoaded)
        // In key order, most lookups land in the block read last, and search it again.
        let ordered = try #require(try IndexFile.open(path + "/.ferry/index"))
        ordered.loadLimit = 0
        for (count, lookup) in keys.sorted(by: { $0.id.rawValue < $1.id.rawValue }).enumerated() {
            #expect(ordered.lookup(lookup) == loaded.lookup(lookup), "ordered lookup \(count) of \(lookup)")
        }
        #expect(!ordered.isLoaded && ordered.damage == nil)
        // Records the file lacks are turned away by its key filter, mostly without a block.
        let before = ordered.blocksRead
        for index in 0..<1_000 { #expect(ordered.lookup(key("n\(index)x")) == nil) }
        #expect(ordered.blocksRead - before < 50, "\(ordered.blocksRead - before) blocks read for 1,000 absent keys")
        #expect(ordered.lookup(key("n2999")) == loaded.lookup(key("n2999")))
    }

    /// A sync page (5,000 changes) looks each record up in several passes; the second pass
    /// must find the first one's answers remembered, not search the file again.
    @Test func aPagesRecordsAreSearchedForOnceAcrossItsPasses() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        do {
            let store = try Store.create(at: path, options: options(interval: 100_000))
            try store.write((0..<6_000).map { .put(key("n\($0)"), ["v": .integer(Int64($0))]) })
            store.close()
        }
        let file = try #require(try IndexFile.open(path + "/.ferry/index"))
        file.loadLimit = 0
        let page = (0..<5_000).map { key("n\($0 * 6_000 / 5_000)") }.shuffled()
        for record in page { #expect(file.lookup(record) != nil) }
        let afterFirstPass = file.blocksRead
        #expect(afterFirstPass > 0)
        for record in page { #expect(file.lookup(record) != nil) }
        #expect(file.blocksRead == afterFirstPass, "the second pass read \(file.blocksRead - afterFirstPass) blocks")
        #expect(IndexFile.recentCapacity > SyncOptions().pageSize)
    }

    @Test func oneEntitysLiveIDsAreReadWithoutLoadingTheImage() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let other = try EntityName("Other")
        do {
            let store = try Store.create(at: path, options: options(interval: 100))
            try store.write((0..<500).map { .put(key("n\($0)"), ["v": .integer(Int64($0))]) })
            try store.write((0..<500).map { .put(RecordKey(entity: other, id: try RecordID("o\($0)")), ["v": 1]) })
            try store.delete(entity: notes, id: RecordID("n7"))
            store.close()
        }
        let store = try Store.open(at: path)
        defer { store.close() }
        let ids = store.index.records.liveIDs(of: notes)
        let removed = try RecordID("n7")
        #expect(ids.count == 499 && !ids.contains(removed))
        #expect(Set(store.index.records.liveWinnerHashes(of: other).map(\.id)).count == 500)
        #expect(store.index.records.base?.isLoaded == false, "the import's id listing loaded the whole image")
    }
}
