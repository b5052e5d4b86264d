import Foundation
import FerryTestSupport
import Testing
@testable import Ferry

/// Listing an entity streams the index (image and delta a piece at a time, merged with the
/// states in memory) and puts the image's sort-key order (by encoded id) into id order
/// (UTF-8 bytes). The ids and documents must come out exactly as sorting every live id did.
@Suite struct SortedListingTests {
    let notes = try! EntityName("Note")
    /// Entities whose names begin like `Note`: their lines lie right before and after its own.
    let neighbours = ["No", "Notd", "Note_", "NoteZ", "Notes", "Nou"].map { try! EntityName($0) }

    /// Ids whose encoded forms sort differently from the ids: escaped bytes above and below
    /// `-`, upper case, non-ASCII, a leading dot, long ids that make `~` folders.
    static let trickyIDs: [String] = [
        "n1", "n10", "n2", "zeta", "z", "Alice", "alice", "ALICE", "a b", "a/b", "a:b", "a-b", "a.b", "a_b", "a~b",
        "a!b", "a#", "a", "ab", "ana@x.com", "ana@y.com", "anb", "%", "100%", "50%off", ".hidden", "-dash", "_under",
        "^caret", "[x]", "{x}", "`x`", "Zürich", "Zug", "Zz", "zürich", "日本", "日本語", "日", "é", "e\u{301}", "😀",
        "a\u{1}b", "tab\there", "line\nbreak", "order:1", "order:2", "order:10", "order-1", "order0", "orderz", "Order:3",
        String(repeating: "é", count: 120), String(repeating: "é", count: 119) + "e", String(repeating: "a", count: 250) + "/",
        String(repeating: "a", count: 240) + ":" + String(repeating: "b", count: 10), String(repeating: "^", count: 80),
    ]

    private func key(_ entity: EntityName, _ id: String) -> RecordKey { RecordKey(entity: entity, id: try! RecordID(id)) }

    /// The live ids as the old listing gave them: every live id of the index, sorted.
    private func sortedByTheOldWay(_ store: Store, _ entity: EntityName) -> [RecordID] {
        store.index.records.liveIDs(of: entity).sorted()
    }

    /// Where two id lists first differ, or `nil` (ids compared as bytes: `é` composed and
    /// decomposed are two records).
    private func firstDifference(_ actual: [RecordID], _ expected: [RecordID]) -> String? {
        for (offset, (a, e)) in zip(actual, expected).enumerated() where a != e {
            return "at \(offset): \(a.rawValue.debugDescription) instead of \(e.rawValue.debugDescription)"
        }
        return actual.count == expected.count ? nil : "\(actual.count) ids instead of \(expected.count)"
    }

    /// Checks ids, documents and an early stop against `model` (id → document).
    private func expectListing(_ store: Store, _ entity: EntityName, _ model: [RecordID: JSONValue], _ stage: String) throws {
        let expected = model.keys.sorted()
        let ids = try store.ids(of: entity)
        #expect(firstDifference(ids, expected) == nil, "\(stage): ids of \(entity)")
        #expect(firstDifference(ids, sortedByTheOldWay(store, entity)) == nil, "\(stage): as sorting every id did")
        var records: [(RecordID, JSONValue)] = []
        try store.forEachRecord(of: entity) { id, document in
            records.append((id, document))
            return true
        }
        #expect(firstDifference(records.map(\.0), expected) == nil, "\(stage): records of \(entity)")
        for (id, document) in records where document != model[id] {
            Issue.record("\(stage): \(entity)/\(id) is \(document), not \(model[id] ?? .null)")
        }
        var firstFive: [RecordID] = []
        try store.forEachID(of: entity) { id in
            firstFive.append(id)
            return firstFive.count < 5
        }
        #expect(firstFive == Array(expected.prefix(5)), "\(stage): stopping early")
    }

    @Test func trickyIDsListInIDOrderFromTheImageTheDeltaAndMemory() async throws {
        let directory = try TemporaryDirectory()
        var options = StoreOptions()
        options.imageInterval = 100_000
        let path = directory.subpath("a")
        var model: [RecordID: JSONValue] = [:]
        var others: [EntityName: [RecordID: JSONValue]] = [:]
        let ids = Self.trickyIDs

        // 1. Everything in the image, with neighbouring entities holding the same ids.
        do {
            let store = try Store.create(at: path, name: "a", options: options)
            var writes: [RecordWrite] = []
            for (offset, id) in ids.enumerated() {
                writes.append(.put(key(notes, id), ["n": .integer(Int64(offset))]))
                model[try RecordID(id)] = ["n": .integer(Int64(offset))]
                for entity in neighbours {
                    writes.append(.put(key(entity, id), ["in": .string(entity.rawValue)]))
                    others[entity, default: [:]][try RecordID(id)] = ["in": .string(entity.rawValue)]
                }
            }
            try store.write(writes)
            try store.writeIndexImage()
            try expectListing(store, notes, model, "image")
            store.close()
        }
        // 2. Conflicts: another replica edits some records at the same time.
        do {
            let a = try Store.open(at: path, options: options)
            let b = try Store.create(at: directory.subpath("b"), name: "b")
            _ = try await b.sync(with: FolderTransport(path: a.path))
            for id in ["a:b", "日本", "Alice", "n1"] {
                try a.put(["by": "a"], entity: notes, id: RecordID(id))
                try b.put(["by": "b"], entity: notes, id: RecordID(id))
            }
            _ = try await b.sync(with: FolderTransport(path: a.path))
            #expect(try a.conflicts().count == 4)
            for id in ["a:b", "日本", "Alice", "n1"] { model[try RecordID(id)] = try a.get(entity: notes, id: RecordID(id)) }
            // 3. Changes since the image, left in the delta: deletes, updates, new ids.
            var writes: [RecordWrite] = []
            for id in ["a/b", "é", "order:2", ".hidden", String(repeating: "é", count: 120), "n10"] {
                writes.append(.delete(key(notes, id)))
                model[try RecordID(id)] = nil
            }
            for id in ["a b", "日本語", "Zug", "order:10"] {
                writes.append(.put(key(notes, id), ["updated": true]))
                model[try RecordID(id)] = ["updated": true]
            }
            for id in ["a:c", "日本人", "order:3", "zz", "Zürich2", "/", "ä", String(repeating: "a", count: 240) + ":c"] {
                writes.append(.put(key(notes, id), ["new": true]))
                model[try RecordID(id)] = ["new": true]
            }
            writes.append(.delete(key(neighbours[3], "a")))
            others[neighbours[3]]?[try RecordID("a")] = nil
            try a.write(writes)
            try expectListing(a, notes, model, "before closing")
            a.close()
            b.close()
        }
        #expect(FileSystem.exists(path + "/.ferry/index-delta"), "the changes went to the delta")
        // 4. Reopened: the image and the delta on disk, then changes in memory on top.
        let store = try Store.open(at: path, options: options)
        defer { store.close() }
        #expect(store.index.records.delta != nil)
        try expectListing(store, notes, model, "image and delta")
        _ = try store.status()
        var writes: [RecordWrite] = []
        for id in ["日本人", "a b", "a!b", "order:1", "zeta"] {
            writes.append(.delete(key(notes, id)))
            model[try RecordID(id)] = nil
        }
        for id in ["Zug", "a:c", "ana@x.com", "%"] {
            writes.append(.put(key(notes, id), ["memory": true]))
            model[try RecordID(id)] = ["memory": true]
        }
        for id in ["a:d", "日本人形", "~", "order:4", "n3", "e"] {
            writes.append(.put(key(notes, id), ["memory": true]))
            model[try RecordID(id)] = ["memory": true]
        }
        try store.write(writes)
        #expect(!store.index.records.overlay.isEmpty)
        try expectListing(store, notes, model, "image, delta and memory")
        for entity in neighbours { try expectListing(store, entity, others[entity] ?? [:], "neighbour") }
        #expect(try store.ids(of: EntityName("Nothing")).isEmpty)
    }

    @Test func idsThatAllSortEarlyStillListInOrder() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        defer { store.close() }
        var model: [RecordID: JSONValue] = [:]
        var writes: [RecordWrite] = []
        for n in 0..<300 {
            for id in ["order:\(n)", "注文\(n)", "user@\(n).example"] {
                writes.append(.put(key(notes, id), ["n": .integer(Int64(n))]))
                model[try RecordID(id)] = ["n": .integer(Int64(n))]
            }
        }
        try store.write(writes)
        try store.writeIndexImage()
        try expectListing(store, notes, model, "all held back")
    }

    @Test func randomIDsListInIDOrder() throws {
        let seed = SeededRandom.environmentNumber("FERRY_LISTING_SEED", default: UInt64(Date().timeIntervalSince1970))
        var random = SeededRandom(seed: seed)
        let alphabet: [String] = ["a", "b", "z", "A", "Z", "0", "9", "-", "_", ".", " ", "/", ":", "@", "%", "^", "~", "é", "日", "\u{1}", "["]
        let directory = try TemporaryDirectory()
        var options = StoreOptions()
        options.imageInterval = 100_000
        let path = directory.subpath("s")
        var model: [RecordID: JSONValue] = [:]
        func randomID() -> String {
            (0..<Int.random(in: 1...6, using: &random)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }.joined()
        }
        func randomWrites(_ count: Int) -> [RecordWrite] {
            var writes: [RecordWrite] = []
            var touched = Set<RecordID>()
            for _ in 0..<count {
                let id = randomID()
                guard touched.insert(try! RecordID(id)).inserted else { continue }
                if random.chance(20) && model[try! RecordID(id)] != nil {
                    writes.append(.delete(key(notes, id)))
                    model[try! RecordID(id)] = nil
                } else {
                    writes.append(.put(key(notes, id), ["id": .string(id)]))
                    model[try! RecordID(id)] = ["id": .string(id)]
                }
            }
            return writes
        }
        do {
            let store = try Store.create(at: path, options: options)
            try store.write(randomWrites(400))
            try store.writeIndexImage()
            try store.write(randomWrites(100))
            store.close()
        }
        let store = try Store.open(at: path, options: options)
        defer { store.close() }
        try store.write(randomWrites(100))
        try expectListing(store, notes, model, "random, seed \(seed)")
    }

    @Test func theOrderBufferTurnsSortKeyOrderIntoIDOrder() throws {
        let seed = SeededRandom.environmentNumber("FERRY_LISTING_SEED", default: UInt64(Date().timeIntervalSince1970))
        var random = SeededRandom(seed: seed)
        let alphabet: [String] = ["a", "z", "A", "0", "-", "_", ".", " ", "/", ":", "%", "~", "é", "日", "\u{7F}", "["]
        for round in 0..<200 {
            var ids = Set<String>()
            for _ in 0..<Int.random(in: 1...60, using: &random) {
                ids.insert((0..<Int.random(in: 1...5, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "a" }.joined())
            }
            let inSortKeyOrder = ids.sorted { RecordFileName.encode(try! RecordID($0)).utf8.lexicographicallyPrecedes(RecordFileName.encode(try! RecordID($1)).utf8) }
            var buffer = IDOrderBuffer<Int>()
            var out: [String] = []
            for id in inSortKeyOrder {
                _ = buffer.add(try RecordID(id), 0) { id, _ in
                    out.append(id.rawValue)
                    return true
                }
            }
            _ = buffer.finish { id, _ in
                out.append(id.rawValue)
                return true
            }
            #expect(out == ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, "seed \(seed), round \(round)")
        }
    }

    @Test func listingReadsTheImageInPiecesNotWhole() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        do {
            let store = try Store.create(at: path)
            try store.write((0..<2_000).map { .put(key(notes, "n\($0)"), ["n": .integer(Int64($0))]) })
            try store.writeIndexImage()
            store.close()
        }
        let store = try Store.open(at: path)
        defer { store.close() }
        #expect(try store.ids(of: notes).count == 2_000)
        #expect(try store.records(of: notes).count == 2_000)
        #expect(store.index.records.base?.isLoadedIntoMemory == false, "a listing must not read the whole index into memory")
    }

    @Test func theCursorFindsAnEntitysLinesAndReadsThemAcrossPieces() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let entities = ["Alpha", "Note", "Notes", "Zed"].map { try! EntityName($0) }
        do {
            let store = try Store.create(at: path)
            try store.write(entities.flatMap { entity in (0..<700).map { .put(key(entity, "r\($0)é"), ["n": .integer(Int64($0))]) } })
            try store.writeIndexImage()
            store.close()
        }
        let text = String(decoding: try FileSystem.readFile(path + "/.ferry/index"), as: UTF8.self)
        let file = try #require(try IndexFile.open(path + "/.ferry/index"))
        for entity in entities + [try EntityName("Nothing"), try EntityName("Aaa"), try EntityName("Zzz")] {
            let expected = text.split(separator: "\n").filter { $0.hasPrefix("K\t\(entity.rawValue)\t") }.map(String.init)
            for pieceSize in [1, 97, 4096, 1 << 20] {
                var cursor = IndexLineCursor(file: file, entity: entity, pieceSize: pieceSize)
                var lines: [String] = []
                while let (sortKey, line) = cursor.next() {
                    #expect(sortKey.starts(with: Array("\(entity.rawValue)\t".utf8)))
                    lines.append(String(decoding: line, as: UTF8.self))
                }
                #expect(lines == expected, "\(entity), pieces of \(pieceSize)")
            }
        }
        #expect(file.damage == nil)
    }

    /// An image with the records `n00`…`n49` of which `damage` spoils one line.
    private func damagedStore(_ directory: TemporaryDirectory, _ damage: (String) -> String) throws -> (Store, WarningRecorder) {
        let path = directory.subpath("s")
        do {
            let store = try Store.create(at: path)
            try store.write((0..<50).map { .put(key(notes, String(format: "n%02d", $0)), ["n": .integer(Int64($0))]) })
            try store.writeIndexImage()
            store.close()
        }
        let index = path + "/.ferry/index"
        try FileSystem.writeFileAtomically(index, Array(damage(String(decoding: try FileSystem.readFile(index), as: UTF8.self)).utf8), durable: false)
        let warnings = WarningRecorder()
        var options = StoreOptions()
        options.warningHandler = warnings.handler
        return (try Store.open(at: path, options: options), warnings)
    }

    @Test func aLineFoundDamagedMidwayIsRebuiltAndTheListingGoesOnWithoutRepeats() throws {
        let directory = try TemporaryDirectory()
        // An id that is not a canonical encoding: n20 read back as N20.
        let (store, warnings) = try damagedStore(directory) { $0.replacingOccurrences(of: "\tNote\tn20\t", with: "\tNote\tN20\t") }
        defer { store.close() }
        var listed: [String] = []
        try store.forEachRecord(of: notes) { id, document in
            listed.append(id.rawValue)
            #expect(document == ["n": .integer(Int64(listed.count - 1))])
            return true
        }
        #expect(listed == (0..<50).map { String(format: "n%02d", $0) })
        #expect(warnings.messages.contains { $0.contains("damaged") })
    }

    @Test func aRecordFoundMissingAfterTheListingIsAnErrorNotASilentGap() throws {
        let directory = try TemporaryDirectory()
        // The line of n20 gone, the counts left as they were.
        let (store, warnings) = try damagedStore(directory) { text in
            text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("K\tNote\tn20\t") }.joined(separator: "\n")
        }
        defer { store.close() }
        var listed: [String] = []
        #expect(throws: StoreError.self) {
            try store.forEachID(of: notes) { id in
                listed.append(id.rawValue)
                return true
            }
        }
        #expect(listed.count == 49 && !listed.contains("n20"))
        #expect(warnings.messages.contains { $0.contains("damaged") })
        // The index is sound again: the next listing is whole.
        #expect(try store.ids(of: notes).map(\.rawValue) == (0..<50).map { String(format: "n%02d", $0) })
    }

    @Test func theOrderBufferHoldsBackOnlyIDsThatSortEarly() throws {
        var buffer = IDOrderBuffer<Void>()
        var out: [String] = []
        for id in ["a", "a b", "b", "n-1", "x"] {
            _ = buffer.add(try RecordID(id), ()) { id, _ in
                out.append(id.rawValue)
                return true
            }
        }
        #expect(buffer.heldCount == 0, "ids with no escaped byte above '-' are never held")
        #expect(out == ["a", "a b", "b", "n-1", "x"])
        #expect(IDOrderBuffer<Void>.leastFollower(of: try RecordID("order:7")) == Array("order-".utf8))
        #expect(IDOrderBuffer<Void>.leastFollower(of: try RecordID(".x")) == Array("-".utf8))
        #expect(IDOrderBuffer<Void>.leastFollower(of: try RecordID("a.x")) == nil)
        #expect(IDOrderBuffer<Void>.leastFollower(of: try RecordID("Zürich")) == Array("Z-".utf8))
    }
}
