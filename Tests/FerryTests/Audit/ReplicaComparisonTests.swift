import Testing
@testable import Ferry

@Suite struct ReplicaComparisonTests {
    let fixture: AuditFixture

    init() throws { fixture = try AuditFixture() }

    @Test func differencesBeforeASyncAndNoneAfter() async throws {
        let laptop = try fixture.create("laptop")
        let server = try fixture.create("server")
        try fixture.put(laptop, ["name": "Lamp", "price": 12.5], nil, "lamp")
        try fixture.put(laptop, ["name": "Desk"], nil, "desk")
        _ = try await fixture.sync(laptop, with: "server")
        #expect(try laptop.compare(with: server).isIdentical)

        try fixture.put(laptop, ["name": "Lamp", "price": 14], nil, "lamp")
        try fixture.delete(laptop, nil, "desk")
        try fixture.put(server, ["name": "Chair"], nil, "chair")
        let comparison = try laptop.compare(with: server)
        #expect(!comparison.isIdentical)
        #expect(comparison.onlyInFirst.map(\.sequence) == [3, 4])
        #expect(comparison.onlyInFirst.map(\.change.origin) == [laptop.replicaID, laptop.replicaID])
        #expect(comparison.onlyInSecond.map(\.change.key.id.rawValue) == ["chair"])
        #expect(comparison.records.map(\.key.id.rawValue) == ["chair", "desk", "lamp"])
        let chair = comparison.records[0]
        #expect(chair.first == .absent)
        #expect(chair.second == .live(["name": "Chair"]))
        #expect(comparison.records[1].first == .deleted)
        #expect(comparison.records[1].changes.map(\.description) == [#"+ name: "Desk""#])
        #expect(comparison.records[2].changes.map(\.description) == ["~ price: 14 → 12.5"])
        // The checkpoint bounds the scan: only entries after it are read.
        #expect(comparison.firstEntriesScanned == 2)
        #expect(comparison.secondEntriesScanned == 1)

        // Reopened, the stores answer from their images and journals alone.
        laptop.close()
        server.close()
        let laptopAgain = try fixture.open("laptop")
        let serverAgain = try fixture.open("server")
        #expect(try laptopAgain.compare(with: serverAgain) == comparison)

        let reverse = try serverAgain.compare(with: laptopAgain)
        #expect(reverse.onlyInFirst == comparison.onlyInSecond)
        #expect(reverse.onlyInSecond == comparison.onlyInFirst)

        _ = try await fixture.sync(serverAgain, with: "laptop")
        let after = try laptopAgain.compare(with: serverAgain, includingFiles: true)
        #expect(after.isIdentical, "\(after)")
        #expect(after.comparedFiles)
    }

    @Test func changesKeptInTheIndexDeltaAreCompared() async throws {
        let a = try fixture.create("a")
        let b = try fixture.create("b")
        for index in 0..<20 { try fixture.put(a, ["n": .integer(Int64(index))], nil, "r\(index)") }
        _ = try await fixture.sync(b, with: "a")
        a.close()
        // Closing after a few changes writes them to the delta file, not a new image.
        var options = fixture.options
        options.imageInterval = 1_000_000
        let changed = try Store.open(at: fixture.path("a"), options: options)
        try fixture.put(changed, ["n": 100], nil, "r3")
        try fixture.put(changed, ["text": "new"], fixture.notes, "r3")
        try fixture.delete(changed, nil, "r4")
        changed.close()
        #expect(FileSystem.exists(changed.layout.indexDelta))
        let reopened = try Store.open(at: fixture.path("a"), options: options)
        let comparison = try reopened.compare(with: b)
        #expect(comparison.onlyInFirst.map(\.change.counter) == [21, 22, 23])
        #expect(comparison.records.map(\.key.description) == ["Note/r3", "Product/r3", "Product/r4"])
        #expect(comparison.records.map(\.first) == [.live(["text": "new"]), .live(["n": 100]), .deleted])
        #expect(comparison.records.map(\.second) == [.absent, .live(["n": 3]), .live(["n": 4])])
    }

    @Test func storesThatNeverMetAreComparedByKnowledge() async throws {
        let a = try fixture.create("a")
        let b = try fixture.create("b")
        let c = try fixture.create("c")
        for index in 0..<20 { try fixture.put(a, ["n": .integer(Int64(index))], nil, "r\(index)") }
        // b and c each get a's changes through their own syncs and never meet each other.
        _ = try await fixture.sync(b, with: "a")
        _ = try await fixture.sync(c, with: "a")
        #expect(try b.compare(with: c).isIdentical)
        try fixture.put(c, ["n": 100], nil, "r3")
        let comparison = try b.compare(with: c)
        #expect(comparison.onlyInFirst.isEmpty)
        #expect(comparison.onlyInSecond.map(\.change.counter) == [1])
        // Found by reading back from the head, not by scanning all 21 entries.
        #expect(comparison.secondEntriesScanned == 1)
        #expect(comparison.records.map(\.changes) == [[FieldChange(path: ["n"], kind: .changed, old: 3, new: 100)]])
    }

    @Test func fullComparisonFindsUncommittedFileEdits() async throws {
        let a = try fixture.create("a")
        let b = try fixture.create("b")
        try fixture.put(a, ["name": "Lamp"], nil, "lamp")
        _ = try await fixture.sync(b, with: "a")
        let file = b.layout.recordFile(RecordKey(entity: fixture.products, id: try RecordID("lamp")))
        _ = try FileSystem.writeFileAtomically(file, Array("{\"name\": \"Hand edit\"}\n".utf8), durable: false)
        _ = try FileSystem.writeFileAtomically(fixture.path("a") + "/records/Product/extra.json", Array("{}\n".utf8), durable: false)
        #expect(try a.compare(with: b).isIdentical)
        let full = try a.compare(with: b, includingFiles: true)
        #expect(full.files == [
            .init(path: "records/Product/extra.json", kind: .onlyInFirst),
            .init(path: "records/Product/lamp.json", kind: .contentDiffers),
        ])
    }
}
