import Testing
@testable import Ferry

@Suite struct NetChangeTests {
    let fixture: AuditFixture

    init() throws { fixture = try AuditFixture() }

    @Test func netEffectPerRecordOverAWindow() throws {
        let store = try fixture.create("laptop")
        try fixture.put(store, ["name": "Lamp", "price": 10], nil, "lamp")  // 0
        try fixture.put(store, ["name": "Chair"], nil, "chair")  // 1
        try fixture.put(store, ["name": "Rug"], nil, "rug")  // 2
        // Window: minutes 3 to 8.
        try fixture.put(store, ["name": "Lamp", "price": 11], nil, "lamp")  // 3
        try fixture.put(store, ["name": "Lamp", "price": 12, "color": "red"], nil, "lamp")  // 4
        try fixture.delete(store, nil, "chair")  // 5
        try fixture.put(store, ["name": "Desk"], nil, "desk")  // 6
        try fixture.put(store, ["name": "Rug", "size": 2], nil, "rug")  // 7
        try fixture.put(store, ["name": "Rug"], nil, "rug")  // 7.5 → back to where it was
        // After the window.
        try fixture.put(store, ["name": "Desk", "price": 99], nil, "desk")  // 9

        let changes = try store.netChanges(since: fixture.time(minutes: 3), until: fixture.time(minutes: 9))
        #expect(changes.map(\.key.id.rawValue) == ["chair", "desk", "lamp"])
        #expect(changes.map(\.kind) == [.deleted, .created, .changed])
        #expect(changes[1].after == ["name": "Desk"])
        #expect(changes[2].steps == 2)
        #expect(changes[2].changes.map(\.description) == [#"+ color: "red""#, "~ price: 10 → 12"])

        let open = try store.netChanges(since: fixture.time(minutes: 9))
        #expect(open.map(\.changes) == [[FieldChange(path: ["price"], kind: .added, old: nil, new: 99)]])
        #expect(try store.netChanges(since: fixture.time(minutes: 100)).isEmpty)
        #expect(throws: AuditError.emptyWindow(since: fixture.time(minutes: 5).milliseconds, until: fixture.time(minutes: 5).milliseconds)) {
            try store.netChanges(since: fixture.time(minutes: 5), until: fixture.time(minutes: 5))
        }
    }

    @Test func changesReceivedLateCountAtTheTimeTheyWereMade() async throws {
        let a = try fixture.create("a")
        let b = try fixture.create("b")
        try fixture.put(b, ["made": "early"], nil, "x")  // minute 0, on b
        fixture.clock.advance(by: 10 * 60_000)
        try fixture.put(a, ["made": "late"], nil, "y")  // minute 11, on a
        _ = try await fixture.sync(a, with: "b")  // a receives x now, stamped minute 0
        let window = try a.netChanges(since: fixture.time(minutes: 5))
        #expect(window.map(\.key.id.rawValue) == ["y"])
        let early = try a.netChanges(since: fixture.time(minutes: 0), until: fixture.time(minutes: 5))
        #expect(early.map(\.key.id.rawValue) == ["x"])
    }
}
