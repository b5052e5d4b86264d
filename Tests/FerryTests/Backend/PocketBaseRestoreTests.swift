import Ferry
import FerryTestSupport
import Foundation
import Testing

/// A real PocketBase restored from a copy of its data folder: what it lost is written there
/// again, and nothing is deleted here (issue 55, item 2); a record another client deletes
/// outright is still deleted here.
@Suite(.serialized) struct PocketBaseRestoreTests {
    static let note = PocketBaseSyncTests.note
    typealias Fixture = PocketBaseSyncTests.Fixture

    /// Stops the server, copies its data folder to `backup`, and starts it again.
    static func backUp(_ fixture: Fixture, to backup: String) throws {
        fixture.server.stop()
        try FileManager.default.copyItem(atPath: fixture.server.directory + "/data", toPath: backup)
        try fixture.server.restart()
    }

    /// Stops the server, puts the copy in `backup` in place of its data folder, and starts it again.
    static func restore(_ fixture: Fixture, from backup: String) throws {
        fixture.server.stop()
        let data = fixture.server.directory + "/data"
        try FileManager.default.removeItem(atPath: data)
        try FileManager.default.copyItem(atPath: backup, toPath: data)
        try fixture.server.restart()
    }

    @Test func aRestoredBackendGetsWhatItLostAgainAndNothingIsDeleted() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        let desktop = try Store.create(at: fixture.directory.subpath("desktop"), name: "desktop")
        for id in ["n1", "n2"] { try laptop.put(["title": .string(id)], entity: Self.note, id: RecordID(id)) }
        _ = try await fixture.sync(laptop)
        _ = try await laptop.sync(with: FolderTransport(path: desktop.path))
        let backup = fixture.directory.subpath("pb-backup")
        try Self.backUp(fixture, to: backup)

        // After the backup: a new record and an edit, pushed.
        try laptop.put(["title": "created after the backup"], entity: Self.note, id: RecordID("n3"))
        try laptop.put(["title": "n2 edited after the backup"], entity: Self.note, id: RecordID("n2"))
        let pushed = try await fixture.sync(laptop)
        #expect(pushed.pushed == 2, "\(pushed)")
        try Self.restore(fixture, from: backup)
        #expect(Set(try await fixture.serverRecords().keys) == ["n1", "n2"], "the backup lacks n3")

        let repaired = try await fixture.sync(laptop)
        #expect(repaired.deletedOnBackend == 0 && repaired.counts.lostRecords == 1 && repaired.counts.lostEdits == 1, "\(repaired)")
        #expect(repaired.pushed == 2, "\(repaired)")
        let note = try #require(repaired.notes.first { $0.contains("lost") }, "\(repaired.notes)")
        #expect(note.hasPrefix("the backend at \(fixture.server.location) lost 1 record and 1 edit of Note since "), "\(note)")
        #expect(note.hasSuffix("; pushed them again"), "\(note)")
        let expected: [String: JSONValue] = [
            "n1": ["title": "n1"], "n2": ["title": "n2 edited after the backup"], "n3": ["title": "created after the backup"],
        ]
        #expect(try PocketBaseSyncTests.documents(laptop) == expected)
        let server = try await fixture.serverRecords()
        #expect(server["n3"]?["title"] == "created after the backup" && server["n2"]?["title"] == "n2 edited after the backup", "\(server)")

        // Repaired for good: the next sync has nothing to do, and a new device gets it all.
        let idle = try await fixture.sync(laptop)
        #expect(idle.pulled == 0 && idle.pushed == 0 && idle.notes.isEmpty, "\(idle)")
        let phone = try fixture.store("phone")
        _ = try await fixture.sync(phone)
        #expect(try PocketBaseSyncTests.documents(phone) == expected)
        // The other peer of the store gets the records, and no delete travels anywhere.
        _ = try await laptop.sync(with: FolderTransport(path: desktop.path))
        #expect(try PocketBaseSyncTests.documents(desktop) == expected)
        for store in [laptop, desktop, phone] {
            #expect(try store.journalEntries().allSatisfy { !$0.change.isDelete }, "\(store.path)")
        }
    }

    /// A backend restored to a copy that lacks only an edit (its count unchanged) is repaired too:
    /// the listing finds nothing as new as Ferry's newest write there.
    @Test func aRestoredBackendThatLostOnlyAnEditGetsItAgain() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "first"], entity: Self.note, id: RecordID("n1"))
        _ = try await fixture.sync(laptop)
        let backup = fixture.directory.subpath("pb-backup")
        try Self.backUp(fixture, to: backup)
        try laptop.put(["title": "second"], entity: Self.note, id: RecordID("n1"))
        _ = try await fixture.sync(laptop)
        try Self.restore(fixture, from: backup)

        let repaired = try await fixture.sync(laptop)
        #expect(repaired.counts.lostEdits == 1 && repaired.counts.lostRecords == 0 && repaired.pushed == 1, "\(repaired)")
        #expect(try await fixture.serverRecords()["n1"]?["title"] == "second")
        #expect(try laptop.get(entity: Self.note, id: RecordID("n1")) == ["title": "second"])
    }

    /// A record another client deletes outright is still deleted here, when the backend shows
    /// no sign of going back in time.
    @Test func aRealDeleteOnTheBackendStillDeletesHere() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "older"], entity: Self.note, id: RecordID("n1"))
        _ = try await fixture.sync(laptop)
        try laptop.put(["title": "newer"], entity: Self.note, id: RecordID("n2"))
        _ = try await fixture.sync(laptop)
        try await fixture.web.delete(in: "Note", id: PocketBaseRecordID.backendID(for: "n1"))
        let report = try await fixture.sync(laptop)
        #expect(report.deletedOnBackend == 1 && report.counts.lostRecords == 0, "\(report)")
        #expect(Set(try PocketBaseSyncTests.documents(laptop).keys) == ["n2"])
        #expect(Set(try await fixture.serverRecords().keys) == ["n2"])
    }
}
