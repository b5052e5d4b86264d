import Testing
@testable import Ferry

@Suite struct RecordHistoryTests {
    let fixture: AuditFixture

    init() throws { fixture = try AuditFixture() }

    @Test func nestedDocumentsAreDiffedByPathVersionByVersion() throws {
        let store = try fixture.create("laptop")
        try fixture.put(store, ["name": "Ada", "address": ["city": "Lyon", "zip": "69001"], "tags": ["a"]], fixture.notes, "ada")
        try fixture.put(store, ["other": 1], fixture.notes, "bob")
        try fixture.put(store, ["name": "Ada", "address": ["city": "Paris", "zip": "69001"], "tags": ["a", "b"]], fixture.notes, "ada")
        try fixture.put(store, ["name": "Ada L.", "address": ["city": "Paris"], "tags": ["a", "b"]], fixture.notes, "ada")
        let history = try store.history(of: RecordKey(entity: fixture.notes, id: RecordID("ada")))
        #expect(history.versions.map(\.entry.sequence) == [1, 3, 4])
        #expect(history.versions.map(\.outcome) == [.applied, .applied, .applied])
        #expect(history.versions[0].changes.map(\.description) == [
            #"+ address: {"city":"Lyon","zip":"69001"}"#, #"+ name: "Ada""#, #"+ tags: ["a"]"#,
        ])
        #expect(history.versions[1].changes.map(\.description) == [
            #"~ address.city: "Lyon" → "Paris""#, #"~ tags: ["a"] → ["a","b"]"#,
        ])
        #expect(history.versions[2].changes.map(\.description) == [
            #"- address.zip: "69001""#, #"~ name: "Ada" → "Ada L.""#,
        ])
        #expect(history.current == ["name": "Ada L.", "address": ["city": "Paris"], "tags": ["a", "b"]])
        #expect(!history.isConflicted)
    }

    @Test func deletedRecordsKeepTheirHistory() throws {
        let store = try fixture.create("laptop")
        try fixture.put(store, ["price": 1], nil, "lamp")
        try fixture.delete(store, nil, "lamp")
        try fixture.put(store, ["price": 2], nil, "lamp")
        try fixture.delete(store, nil, "lamp")
        let history = try store.history(of: RecordKey(entity: fixture.products, id: RecordID("lamp")))
        #expect(history.current == nil)
        #expect(history.versions.map(\.entry.change.operation.name) == ["put", "delete", "put", "delete"])
        #expect(history.versions[1].changes.map(\.description) == ["- price: 1"])
        #expect(history.versions[2].changes.map(\.description) == ["+ price: 2"])
    }

    @Test func concurrentVersionsShowTheirOutcome() async throws {
        let a = try fixture.create("a")
        let b = try fixture.create("b")
        try fixture.put(a, ["title": "t"], nil, "n")
        _ = try await fixture.sync(b, with: "a")
        try fixture.put(a, ["title": "A"], nil, "n")
        try fixture.put(b, ["title": "B"], nil, "n")  // later stamp: wins
        _ = try await fixture.sync(a, with: "b")
        let history = try a.history(of: RecordKey(entity: fixture.products, id: RecordID("n")))
        #expect(history.versions.map(\.outcome) == [.applied, .applied, .applied])
        #expect(history.isConflicted)
        #expect(history.current == ["title": "B"])
        let other = try b.history(of: RecordKey(entity: fixture.products, id: RecordID("n")))
        #expect(other.versions.map(\.outcome) == [.applied, .applied, .conflict])
        #expect(other.versions[2].changes.map(\.description) == [#"~ title: "B" → "A""#])
    }

    @Test func unknownRecordIsAnError() throws {
        let store = try fixture.create("laptop")
        let key = RecordKey(entity: fixture.products, id: try RecordID("nope"))
        #expect(throws: AuditError.recordNotFound(key)) { try store.history(of: key) }
    }
}
