@testable import Ferry
import FerryTestSupport
import Foundation
import Testing

/// A sync that finds nothing new on a real PocketBase writes nothing of its own: `state.json`
/// would change only in when the collection was last listed, which no later sync reads once
/// the listing starts at the watermark (past the overlap window of the last write).
@Suite(.serialized) struct PocketBaseNoOpSyncTests {
    typealias Fixture = PocketBaseSyncTests.Fixture
    static let note = PocketBaseSyncTests.note

    @Test func aSyncThatFindsNothingNewLeavesTheStateFileAsItIsAndTheNextEditIsStillPulled() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "first", "rank": 1], entity: Self.note, id: RecordID("n1"))
        _ = try await fixture.sync(laptop)
        // Past the overlap window (2 s) of the last write by the backend's clock (whole seconds).
        let written = try #require(try await fixture.serverRecords()["n1"]?["updated"]?.stringValue.flatMap {
            ISO8601Milliseconds.parse($0.replacingOccurrences(of: " ", with: "T"))
        })
        #expect(try await fixture.waitForServerClock(toReach: written + 3000))
        let listed = try await fixture.sync(laptop)  // its listing began past the window: saved
        #expect(listed.pulled == 0 && listed.pushed == 0, "\(listed)")
        let location = PocketBaseBackend(client: fixture.client()).location
        let statePath = BackendState.folder(of: location, in: laptop) + "/state.json"
        let before = try #require(try FileSystem.status(statePath))

        let idle = try await fixture.sync(laptop)
        #expect(idle.pulled == 0 && idle.pushed == 0, "\(idle)")
        let after = try #require(try FileSystem.status(statePath))
        #expect(after.inode == before.inode && after.modificationNanoseconds == before.modificationNanoseconds, "state.json was written again")

        // The state kept lists from where the one not written would have: another client's edit comes down.
        try await fixture.webEdit("n1", ["title": "edited on the web"])
        let pulled = try await fixture.sync(laptop)
        #expect(pulled.pulled == 1 && pulled.pushed == 0, "\(pulled)")
        #expect(try PocketBaseSyncTests.documents(laptop)["n1"] == ["title": "edited on the web", "rank": 1])
        #expect(try FileSystem.status(statePath)?.inode != before.inode, "what was pulled is saved")
        let settled = try await fixture.sync(laptop)
        #expect(settled.pulled == 0 && settled.pushed == 0, "\(settled)")
    }
}
