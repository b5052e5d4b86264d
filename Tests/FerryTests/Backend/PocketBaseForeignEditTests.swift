@testable import Ferry
import FerryTestSupport
import Foundation
import Testing

/// Writers that do not follow Ferry's rules (issue 48, item 1), against a real PocketBase: a
/// superuser who bypasses every rule and leaves `ferry_rev` alone, and a client that writes a
/// revision of Ferry's form borrowed from another record. Their edits reach the store, and a
/// push never writes over them.
@Suite(.serialized) struct PocketBaseForeignEditTests {
    typealias Fixture = PocketBaseSyncTests.Fixture
    static let note = PocketBaseSyncTests.note

    /// An edit as the dashboard makes it: a superuser's PATCH of the fields alone.
    static func dashboardEdit(_ fixture: Fixture, _ ferryID: String, _ fields: [String: JSONValue]) async throws {
        _ = try await fixture.client(superuser: true).update(in: "Note", id: PocketBaseRecordID.backendID(for: ferryID), fields: fields)
    }

    @Test func aDashboardEditThatKeepsTheRevisionIsPulledAndNeverOverwritten() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "Buy milk", "rank": 1], entity: Self.note, id: RecordID("n1"))
        _ = try await fixture.sync(laptop)
        let revision = try await fixture.serverRecords()["n1"]?["ferry_rev"]

        try await Self.dashboardEdit(fixture, "n1", ["title": "Buy oat milk"])
        #expect(try await fixture.serverRecords()["n1"]?["ferry_rev"] == revision, "the dashboard leaves the revision alone")
        let pulled = try await fixture.sync(laptop)
        #expect(pulled.pulled == 1 && pulled.pushed == 0 && pulled.conflicts.isEmpty, "\(pulled)")
        #expect(try PocketBaseSyncTests.documents(laptop)["n1"] == ["title": "Buy oat milk", "rank": 1])

        // The next local edit descends from it, and goes up.
        try laptop.put(["title": "Buy oat milk", "rank": 2], entity: Self.note, id: RecordID("n1"))
        let pushed = try await fixture.sync(laptop)
        #expect(pushed.pushed == 1 && pushed.pulled == 0 && pushed.conflicts.isEmpty, "\(pushed)")
        let server = try await fixture.serverRecords()["n1"]
        #expect(server?["title"] == "Buy oat milk" && server?["rank"] == 2)

        // A dashboard edit and an offline edit of the same field meet as a conflict; the
        // dashboard's version stays on the server until the user resolves it.
        try laptop.put(["title": "laptop title", "rank": 2], entity: Self.note, id: RecordID("n1"))
        try await Self.dashboardEdit(fixture, "n1", ["title": "dashboard title"])
        let met = try await fixture.sync(laptop)
        #expect(met.conflicts.map(\.id.rawValue) == ["n1"], "\(met)")
        #expect(try await fixture.serverRecords()["n1"]?["title"] == "dashboard title")
        let idle = try await fixture.sync(laptop)
        #expect(idle.pulled == 0 && idle.pushed == 0, "\(idle)")
        #expect(try StoreVerifier(path: laptop.path).verify().isClean)
    }

    /// The dashboard writes between Ferry's pull and its push: the update, conditional on the
    /// `updated` Ferry saw, is refused; the next round pulls the edit and merges it.
    @Test func aPushNeverOverwritesADashboardEditItHasNotSeen() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "draft", "rank": 1], entity: Self.note, id: RecordID("n1"))
        _ = try await fixture.sync(laptop)
        try laptop.put(["title": "laptop title", "rank": 1], entity: Self.note, id: RecordID("n1"))
        let racing = RacingBackend(PocketBaseBackend(client: fixture.client())) {
            try await Self.dashboardEdit(fixture, "n1", ["rank": 9])
        }
        let report = try await fixture.sync(laptop, policy: .merge, backend: racing)
        #expect(report.rounds == 2 && report.pushed == 1 && report.waiting.isEmpty, "\(report)")
        #expect(try PocketBaseSyncTests.documents(laptop)["n1"] == ["title": "laptop title", "rank": 9])
        let server = try await fixture.serverRecords()["n1"]
        #expect(server?["title"] == "laptop title" && server?["rank"] == 9, "\(String(describing: server))")
    }

    /// A client follows the rule's letter (the right base revision, a new revision) with a
    /// revision of Ferry's form borrowed from another record: its content is not that change's,
    /// so it is pulled as another client's edit, and said so.
    @Test func aBorrowedFerryRevisionIsPulledAsAnEdit() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "first", "rank": 1], entity: Self.note, id: RecordID("n1"))
        try laptop.put(["title": "second", "rank": 2], entity: Self.note, id: RecordID("n2"))
        _ = try await fixture.sync(laptop)
        let server = try await fixture.serverRecords()
        let borrowed = try #require(server["n1"]?["ferry_rev"]?.stringValue)
        #expect(borrowed.hasPrefix("ferry:"))
        _ = try await fixture.web.update(in: "Note", id: PocketBaseRecordID.backendID(for: "n2"), fields: [
            "title": "changed by the web", "ferry_base_rev": server["n2"]?["ferry_rev"] ?? "", "ferry_rev": .string(borrowed),
        ])
        let pulled = try await fixture.sync(laptop)
        #expect(pulled.pulled == 1 && pulled.conflicts.isEmpty, "\(pulled)")
        #expect(pulled.notes.contains { $0.contains("names a change of Ferry's whose content it does not hold") }, "\(pulled)")
        #expect(try PocketBaseSyncTests.documents(laptop)["n2"] == ["title": "changed by the web", "rank": 2])
        let idle = try await fixture.sync(laptop)
        #expect(idle.pulled == 0 && idle.pushed == 0, "\(idle)")
        // The store and the backend agree from then on: the next edit goes up over it.
        try laptop.put(["title": "edited here", "rank": 2], entity: Self.note, id: RecordID("n2"))
        let pushed = try await fixture.sync(laptop)
        #expect(pushed.pushed == 1 && pushed.conflicts.isEmpty, "\(pushed)")
        #expect(try await fixture.serverRecords()["n2"]?["title"] == "edited here")
    }

    /// What a store kept of a backend before Ferry kept `updated` (bases of five fields, no
    /// `updatedKnown`) still loads; the next sync lists the collection whole and finds the
    /// dashboard edit made under the same revision, and pulls nothing else.
    @Test func basesWrittenBeforeUpdatedWasKeptFindADashboardEdit() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "one", "rank": 1], entity: Self.note, id: RecordID("n1"))
        try laptop.put(["title": "two", "rank": 2], entity: Self.note, id: RecordID("n2"))
        _ = try await fixture.sync(laptop)
        try Self.forgetUpdated(in: laptop)
        try await Self.dashboardEdit(fixture, "n2", ["title": "two, edited on the dashboard"])
        let report = try await fixture.sync(laptop)
        #expect(report.pulled == 1 && report.pushed == 0 && report.conflicts.isEmpty, "\(report)")
        #expect(try PocketBaseSyncTests.documents(laptop) == ["n1": ["title": "one", "rank": 1], "n2": ["title": "two, edited on the dashboard", "rank": 2]])
        let idle = try await fixture.sync(laptop)
        #expect(idle.pulled == 0 && idle.pushed == 0, "\(idle)")
    }

    /// Rewrites the store's memory of the backend as Ferry wrote it before it kept `updated`.
    static func forgetUpdated(in store: Store) throws {
        let root = store.path + "/.ferry/peers"
        let walker = try #require(FileManager.default.enumerator(atPath: root))
        var rewritten = 0
        for case let path as String in walker {
            let full = root + "/" + path
            if path.hasSuffix("/backend/state.json") {
                var object = try #require(try JSONParser.parse(FileSystem.readFile(full, limit: 1 << 20)).objectValue)
                object["updatedKnown"] = nil
                _ = try FileSystem.writeFileAtomically(full, JSONValue.object(object).prettyBytes(), durable: false)
                rewritten += 1
            } else if path.hasSuffix("/log") || path.hasSuffix("/table"), path.contains("/bases/") {
                let text = String(decoding: try FileSystem.readFile(full, limit: 1 << 20), as: UTF8.self)
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                    let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                    let width = line.hasPrefix("+\t") ? 8 : 7
                    return fields.count == width ? fields.dropLast(2).joined(separator: "\t") : String(line)
                }
                _ = try FileSystem.writeFileAtomically(full, Array(lines.joined(separator: "\n").utf8), durable: false)
                rewritten += 1
            }
        }
        #expect(rewritten >= 2)
    }
}
