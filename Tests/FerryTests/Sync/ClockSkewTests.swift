import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// Hybrid logical clocks across skewed wall clocks: a replica whose clock is an hour behind
/// still stamps an edit made after receiving a change later than that change; a change
/// stamped more than a day ahead of the receiver's clock is refused, naming the peer.
@Suite struct ClockSkewTests {
    let notes = try! EntityName("Note")
    /// A fixed "now" (2025-11-21), so the stamps are reproducible.
    static let now: UInt64 = 1_763_700_000_000

    func makeStore(_ directory: TemporaryDirectory, _ name: String, clock: any WallClock) throws -> (Store, StoreOptions) {
        var options = StoreOptions()
        options.clock = clock
        return (try Store.create(at: directory.subpath(name), name: name, options: options), options)
    }

    @Test func editAfterReceivingCountsAsLaterOnASlowClock() async throws {
        let directory = try TemporaryDirectory()
        let (a, aOptions) = try makeStore(directory, "a", clock: ManualClock(milliseconds: Self.now))
        let (b, bOptions) = try makeStore(directory, "b", clock: ManualClock(milliseconds: Self.now - 3_600_000))
        let (c, cOptions) = try makeStore(directory, "c", clock: ManualClock(milliseconds: Self.now - 60_000))
        let key = RecordKey(entity: notes, id: try RecordID("r"))

        let fromA = try a.write([.put(key, ["v": "a"])]).entries[0].change
        // C edits offline, concurrently, a minute "before" A by its own clock.
        let fromC = try c.write([.put(key, ["v": "c"])]).entries[0].change
        _ = try await b.sync(with: FolderTransport(path: a.path, options: aOptions))
        // B's wall clock is an hour behind, but its edit comes after A's change it has seen.
        let fromB = try b.write([.put(key, ["v": "b"])]).entries[0].change
        #expect(fromB.timestamp > fromA.timestamp, "B stamped \(fromB.timestamp), after receiving \(fromA.timestamp)")
        #expect(fromB.timestamp.physical >= Self.now, "the HLC must have moved past the received stamp")
        #expect(fromB.timestamp > fromC.timestamp)

        _ = try await c.sync(with: FolderTransport(path: b.path, options: bOptions))
        _ = try await a.sync(with: FolderTransport(path: c.path, options: cOptions))
        _ = try await b.sync(with: FolderTransport(path: a.path, options: aOptions))
        for store in [a, b, c] {
            // B's edit wins over C's concurrent one, although B's wall clock read an hour earlier.
            #expect(try store.get(entity: notes, id: key.id) == ["v": "b"], "\(store.manifest.name ?? "")")
            let conflict = try #require(try store.conflicts().first)
            #expect(conflict.winner.identity == fromB.identity)
            #expect(conflict.losers.map(\.identity) == [fromC.identity])
        }
    }

    @Test func changeStampedMoreThanADayAheadIsQuarantinedWhenPulledAndRefusedWhenPushed() async throws {
        let directory = try TemporaryDirectory()
        let (ahead, aheadOptions) = try makeStore(directory, "ahead", clock: OffsetClock(offsetMilliseconds: 2 * 86_400_000))
        let (empty, _) = try makeStore(directory, "empty", clock: SystemClock())
        let (busy, busyOptions) = try makeStore(directory, "busy", clock: SystemClock())
        let key = RecordKey(entity: notes, id: try RecordID("future"))
        try ahead.put(["v": 1], entity: notes, id: key.id)
        try busy.put(["v": 0], entity: notes, id: RecordID("mine"))

        // An empty store joins from the peer's snapshot, which would claim the change: refused.
        do {
            _ = try await empty.sync(with: FolderTransport(path: ahead.path, options: aheadOptions))
            Issue.record("a join took a change two days ahead")
        } catch {
            guard case .clockSkew(let peer, let origin, let record, let aheadBy, let limit) = error else { throw error }
            #expect(peer == ahead.path && origin == ahead.replicaID && record == key)
            #expect(aheadBy > 86_400_000 && limit == 86_400_000)
            #expect(error.description.contains("--max-skew") && error.description.contains("--restamp"), "\(error)")
        }
        #expect(empty.headSequence == 0)
        #expect(try empty.get(entity: notes, id: key.id) == nil)
        // A store that holds records quarantines it, with a note naming the replica and how far
        // ahead, and syncs the rest.
        let head = busy.headSequence
        let report = try await busy.sync(with: FolderTransport(path: ahead.path, options: aheadOptions))
        let note = try #require(report.notes.first { $0.hasPrefix("quarantined 1 change of replica \(ahead.replicaID.short)") })
        #expect(note.contains("stamped up to 2 d 0 h ahead") && note.contains("--max-skew") && note.contains("--restamp"), "\(note)")
        #expect(busy.headSequence == head, "nothing of it may be applied")
        #expect(try busy.get(entity: notes, id: key.id) == nil)
        #expect(try ahead.get(entity: notes, id: RecordID("mine")) == ["v": 0], "the reconcile pushed busy's record")

        // Pushed the other way, the receiving peer refuses it too, and keeps nothing.
        let busyHead = busy.headSequence
        await #expect {
            _ = try await ahead.sync(with: FolderTransport(path: busy.path, options: busyOptions))
        } throws: { error in
            guard let error = error as? SyncError, case .clockSkew(_, let origin, let record, _, _) = error else { return false }
            return record == key && origin == ahead.replicaID && error.description.contains("--max-skew")
        }
        #expect(busy.headSequence == busyHead)

        // The bound is configurable.
        var options = SyncOptions()
        options.maximumClockSkewMilliseconds = 3 * 86_400_000
        _ = try await empty.sync(with: FolderTransport(path: ahead.path, options: aheadOptions), options: options)
        #expect(try empty.get(entity: notes, id: key.id) == ["v": 1])
    }
}
