import Testing
@testable import Ferry

@Suite struct LogTests {
    let fixture: AuditFixture

    init() throws { fixture = try AuditFixture() }

    /// Six changes on two replicas: laptop makes lamp and chair, server edits lamp, laptop
    /// deletes chair and adds a note. Times are minutes 0…5 after the fixture's start.
    func makeHistory() async throws -> (AuditFixture, Store, Store) {
        let laptop = try fixture.create("laptop")
        let server = try fixture.create("server")
        try fixture.put(laptop, ["name": "Lamp", "price": 12.5], nil, "lamp")  // 0
        try fixture.put(laptop, ["name": "Chair", "price": 40], nil, "chair")  // 1
        _ = try await fixture.sync(server, with: "laptop")
        try fixture.put(server, ["name": "Lamp", "price": 14, "color": "red"], nil, "lamp")  // 2
        _ = try await fixture.sync(laptop, with: "server")
        try fixture.delete(laptop, nil, "chair")  // 3
        try fixture.put(laptop, ["text": "hi"], fixture.notes, "lamp")  // 4: same id, other entity
        try fixture.put(laptop, ["name": "Lamp", "price": 15, "color": "red"], nil, "lamp")  // 5
        return (fixture, laptop, server)
    }

    func sequences(_ entries: [LogEntry]) -> [UInt64] { entries.map(\.entry.sequence) }

    @Test func newestFirstWithFieldChanges() async throws {
        let (_, laptop, _) = try await makeHistory()
        let log = try laptop.log(LogQuery())
        #expect(sequences(log) == [6, 5, 4, 3, 2, 1])
        #expect(log[0].changes?.map(\.description) == ["~ price: 14 → 15"])
        #expect(log[0].createsRecord == false)
        #expect(log[3].changes?.map(\.description) == [#"+ color: "red""#, "~ price: 12.5 → 14"])
        #expect(log[2].entry.change.isDelete)
        #expect(log[2].changes == [])
        #expect(log[5].createsRecord)
        #expect(log[5].changes?.map(\.pathText) == ["name", "price"])
    }

    @Test func filtersByEntityIdOriginOperationAndLimit() async throws {
        let (_, laptop, server) = try await makeHistory()
        #expect(sequences(try laptop.log(LogQuery(entity: try EntityName("Note")))) == [5])
        #expect(sequences(try laptop.log(LogQuery(id: try RecordID("lamp")))) == [6, 5, 3, 1])
        #expect(sequences(try laptop.log(LogQuery(entity: try EntityName("Product"), id: try RecordID("lamp")))) == [6, 3, 1])
        #expect(sequences(try laptop.log(LogQuery(origin: server.replicaID))) == [3])
        #expect(sequences(try laptop.log(LogQuery(operation: .delete))) == [4])
        #expect(sequences(try laptop.log(LogQuery(operation: .put, limit: 2))) == [6, 5])
        #expect(sequences(try laptop.log(LogQuery(id: try RecordID("lamp"), limit: 1))) == [6])
        #expect(try laptop.log(LogQuery(id: try RecordID("nothing"))).isEmpty)
    }

    @Test func idLookupOnAStoreOpenedCleanReadsTheImageText() async throws {
        let (fixture, laptop, _) = try await makeHistory()
        let expected = try laptop.log(LogQuery(id: try RecordID("lamp")))
        laptop.close()
        let reopened = try fixture.open("laptop")
        #expect(try reopened.log(LogQuery(id: try RecordID("lamp"))) == expected)
        #expect(try reopened.log(LogQuery(entity: fixture.notes, id: try RecordID("lamp"))).map(\.entry.sequence) == [5])
        let head = reopened.head
        let count = try #require(try IndexFile.open(reopened.layout.index)).header.recordCount
        #expect(IndexRecordLookup.entities(inImageAt: reopened.layout.index, head: head, recordCount: count) == [
            fixture.notes, fixture.products,
        ])
        // Another image's head, or a wrong record count: not the image the store opened.
        #expect(IndexRecordLookup.entities(
            inImageAt: reopened.layout.index, head: StoreHead(sequence: 99, hash: .zero, latestModification: .zero),
            recordCount: count) == nil)
        #expect(IndexRecordLookup.entities(inImageAt: reopened.layout.index, head: head, recordCount: count + 1) == nil)
    }

    @Test func idLookupSeesRecordsOnlyInTheIndexDelta() async throws {
        let (fixture, laptop, _) = try await makeHistory()
        laptop.close()
        // Closing after a few changes writes them to the delta file, not a new image.
        var options = fixture.options
        options.imageInterval = 1_000_000
        let store = try Store.open(at: fixture.path("laptop"), options: options)
        let tags = try EntityName("Tag")
        try fixture.put(store, ["text": "new"], tags, "lamp")
        try fixture.put(store, ["name": "Lamp", "price": 16], nil, "lamp")
        store.close()
        #expect(FileSystem.exists(store.layout.indexDelta))
        let reopened = try Store.open(at: fixture.path("laptop"), options: options)
        #expect(sequences(try reopened.log(LogQuery(id: try RecordID("lamp")))) == [8, 7, 6, 5, 3, 1])
        #expect(sequences(try reopened.log(LogQuery(entity: tags, id: try RecordID("lamp")))) == [7])
        // Records of every entity: many entities, many records, so the lookup searches by offsets.
        var writes: [RecordWrite] = []
        for entity in ["A", "B_2", "Zeta", "a", "m"] {
            for index in 0..<400 {
                writes.append(.put(RecordKey(entity: try EntityName(entity), id: try RecordID("r\(index)")), ["n": .integer(Int64(index))]))
            }
        }
        _ = try reopened.write(writes)
        try reopened.writeIndexImage()
        let head = reopened.head
        let count = try #require(try IndexFile.open(reopened.layout.index)).header.recordCount
        let entities = try #require(IndexRecordLookup.entities(inImageAt: reopened.layout.index, head: head, recordCount: count))
        #expect(entities.map(\.rawValue) == ["A", "B_2", "Note", "Product", "Tag", "Zeta", "a", "m"])
        #expect(try reopened.log(LogQuery(id: try RecordID("r7"))).map(\.entry.change.key.entity.rawValue).sorted() == [
            "A", "B_2", "Zeta", "a", "m",
        ])
    }

    @Test func filtersByTimeSinceInclusiveUntilExclusive() async throws {
        let (fixture, laptop, _) = try await makeHistory()
        let query = LogQuery(since: fixture.time(minutes: 2), until: fixture.time(minutes: 4))
        #expect(sequences(try laptop.log(query)) == [4, 3])
        let withID = LogQuery(id: try RecordID("lamp"), since: fixture.time(minutes: 2))
        #expect(sequences(try laptop.log(withID)) == [6, 5, 3])
    }

    @Test func idChainAndFullScanAgree() async throws {
        let (_, laptop, _) = try await makeHistory()
        let chained = try laptop.log(LogQuery(entity: try EntityName("Product"), id: try RecordID("chair")))
        let scanned = try laptop.log(LogQuery(entity: try EntityName("Product"))).filter { $0.entry.change.key.id.rawValue == "chair" }
        #expect(chained == scanned)
        #expect(chained.map(\.entry.change.operation.name) == ["delete", "put"])
    }

    @Test func jsonHasEveryJournalField() async throws {
        let (_, laptop, _) = try await makeHistory()
        let first = try #require(try laptop.log(LogQuery(limit: 1), fieldChanges: false).first)
        #expect(first.changes == nil)
        let json = first.entry.jsonValue
        for field in ["seq", "origin", "counter", "hlc", "op", "entity", "id", "doc", "vv", "pseq", "prev", "hash"] {
            #expect(json[field] != nil, "missing \(field)")
        }
        #expect(json["pseq"] == 3)
        #expect(json["seq"] == 6)
    }

    @Test func replicaNamesComeFromTheManifestAndCheckpoints() async throws {
        let (_, laptop, server) = try await makeHistory()
        let names = laptop.replicaNames()
        #expect(names.label(for: laptop.replicaID) == "laptop")
        #expect(names.label(for: server.replicaID) == "server")
        #expect(names.label(for: ReplicaID("00000000-0000-0000-0000-000000000001")!) == "00000000")
        let known = laptop.knowledge.counters.keys
        #expect(try names.resolve("server", among: known) == server.replicaID)
        #expect(try names.resolve(String(server.replicaID.rawValue.prefix(6)), among: known) == server.replicaID)
        #expect(try names.resolve(server.replicaID.rawValue.uppercased(), among: known) == server.replicaID)
        #expect(throws: AuditError.unknownReplica("phone")) { try names.resolve("phone", among: known) }
    }
}
