import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// A peer that defers records (as an app backend does when its compare-and-set meets another
/// client's newer write): the engine runs more rounds, reports what still waits, and records
/// no checkpoint past what the peer did not take. In memory, no backend: the rules of the
/// engine alone.
@Suite struct SyncRoundsTests {
    static let notes = try! EntityName("Note")

    /// A ``MemoryReplica`` peer whose first `deferrals` pushes take nothing and defer every
    /// record (the frontier of the replicas they came from stays where it was).
    final class DeferringPeer: SyncTransport, @unchecked Sendable {
        let inner = MemoryReplica(name: "deferring")
        var deferrals: Int
        private(set) var opened = 0
        private(set) var closed = 0

        init(deferrals: Int) { self.deferrals = deferrals }

        var peerDescription: String { "deferring peer" }
        func open() async throws(SyncError) -> PeerInfo {
            opened += 1
            return try await inner.open()
        }
        func close() async {
            closed += 1
            await inner.close()
        }
        func frontier() async throws(SyncError) -> ReplicaFrontier { try await inner.frontier() }
        func liveRecordCount() async throws(SyncError) -> Int { try await inner.liveRecordCount() }
        func resume(from mark: PeerMark) async throws(SyncError) -> UInt64? { try await inner.resume(from: mark) }
        func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch {
            try await inner.changes(after: position, excluding: knowledge, limit: limit)
        }
        func push(_ changes: [Change], maximumSkew: UInt64, continuing mark: PeerMark?) async throws(SyncError) -> PushResult {
            guard deferrals > 0 else { return try await inner.push(changes, maximumSkew: maximumSkew, continuing: mark) }
            deferrals -= 1
            var result = PushResult(markAfter: mark)
            result.deferred = Array(Set(changes.map(\.key))).sorted()
            return result
        }
        func saveCheckpoint(_ checkpoint: PeerCheckpoint) async throws(SyncError) { try await inner.saveCheckpoint(checkpoint) }
    }

    func id(_ text: String) -> RecordID { try! RecordID(text) }

    @Test func aDeferredPushRunsAnotherRoundThatTakesIt() async throws {
        let laptop = MemoryReplica(name: "laptop")
        try laptop.put(["n": 1], entity: Self.notes, id: id("a"))
        let peer = DeferringPeer(deferrals: 1)
        let report = try await SyncEngine(replica: laptop, transport: peer).run()
        #expect(report.rounds == 2 && peer.opened == 2 && peer.closed == 1, "opened for each round, closed once: \(report)")
        #expect(report.pushed == 1 && report.waiting.isEmpty && report.notes.isEmpty, "\(report)")
        #expect(peer.inner.records.count == 1)
        #expect(report.jsonValue["rounds"] == 2 && report.jsonValue["waiting"] == [])
    }

    @Test func whatIsStillDeferredAfterTheLastRoundWaitsAndTheNextSyncPushesIt() async throws {
        let laptop = MemoryReplica(name: "laptop")
        try laptop.put(["n": 1], entity: Self.notes, id: id("a"))
        try laptop.put(["n": 2], entity: Self.notes, id: id("b"))
        let peer = DeferringPeer(deferrals: 5)
        let report = try await SyncEngine(replica: laptop, transport: peer).run()
        #expect(report.rounds == 3 && peer.opened == 3, "\(report)")
        #expect(report.waiting.map(\.description) == ["Note/a", "Note/b"] && report.pushed == 0, "\(report)")
        #expect(report.notes == ["2 records changed on deferring peer again while this sync ran; the next sync pushes them"])
        #expect(report.jsonValue["waiting"] == ["Note/a", "Note/b"])
        // The checkpoint does not say the peer has them: the next sync reads them again.
        let checkpoint = try #require(try laptop.checkpoint(for: peer.inner.replicaID))
        #expect(checkpoint.localPosition == 0, "\(checkpoint)")
        peer.deferrals = 0
        let next = try await SyncEngine(replica: laptop, transport: peer).run()
        #expect(next.pushed == 2 && next.waiting.isEmpty && next.rounds == 1, "\(next)")
        #expect(try laptop.checkpoint(for: peer.inner.replicaID)?.localPosition == laptop.head.sequence)
        #expect(try await SyncEngine(replica: laptop, transport: peer).run().plan == .upToDate)
    }

    @Test func oneWayAndDryRunsRunOneRound() async throws {
        let laptop = MemoryReplica(name: "laptop")
        try laptop.put(["n": 1], entity: Self.notes, id: id("a"))
        let peer = DeferringPeer(deferrals: 5)
        var options = SyncOptions()
        options.direction = .pushOnly
        let pushOnly = try await SyncEngine(replica: laptop, transport: peer, options: options).run()
        #expect(pushOnly.rounds == 1 && pushOnly.waiting.count == 1, "a round pulls what the peer holds; push-only does not pull")
        options = SyncOptions()
        options.dryRun = true
        let dry = try await SyncEngine(replica: laptop, transport: peer, options: options).run()
        #expect(dry.rounds == 1 && dry.pushed == 1 && dry.waiting.isEmpty, "\(dry)")
    }
}
