import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// One replica whose clock ran ahead blocks no one (issue 55, item 4): its changes on a hub are
/// quarantined by the others, who keep syncing; once its clock is fixed it refuses to publish
/// what it stamped ahead, until `restamp` stamps those changes again; `ferry serve` refuses
/// them on receipt, naming the replica and how far ahead they are.
@Suite struct ClockAheadTests {
    static let notes = try! EntityName("Note")
    static let day: UInt64 = 86_400_000

    static func store(_ directory: TemporaryDirectory, _ name: String, clock: any WallClock = SystemClock()) throws -> Store {
        var options = StoreOptions()
        options.clock = clock
        return try Store.create(at: directory.subpath(name), name: name, options: options)
    }

    static func reopen(_ store: Store, clock: any WallClock) throws -> Store {
        store.close()
        var options = StoreOptions()
        options.clock = clock
        return try Store.open(at: store.path, options: options)
    }

    static func ids(_ store: Store) throws -> Set<String> {
        Set(try store.records(of: notes).map(\.0.rawValue))
    }

    @Test func othersKeepSyncingWithAHubThatHoldsChangesStampedAhead() async throws {
        let directory = try TemporaryDirectory()
        let hub = directory.subpath("hub")
        try await Hub.create(in: FolderHubStorage(root: hub), openToAnyWriter: true)
        let ahead = try Self.store(directory, "ahead", clock: OffsetClock(offsetMilliseconds: 2 * Int64(Self.day)))
        let laptop = try Self.store(directory, "laptop")
        let phone = try Self.store(directory, "phone")
        try laptop.put(["v": 1], entity: Self.notes, id: RecordID("b1"))
        _ = try await laptop.sync(with: HubTransport(folder: hub))
        // The clock two days ahead agrees with its own stamps: a hub has no clock to refuse them by.
        try ahead.put(["v": "future"], entity: Self.notes, id: RecordID("future"))
        _ = try await ahead.sync(with: HubTransport(folder: hub))

        try laptop.put(["v": 2], entity: Self.notes, id: RecordID("b2"))
        let fromLaptop = try await laptop.sync(with: HubTransport(folder: hub))
        #expect(fromLaptop.pushed == 1, "\(fromLaptop)")
        let note = try #require(fromLaptop.notes.first { $0.hasPrefix("quarantined 1 change of replica \(ahead.replicaID.short) from \(hub)") },
                                "\(fromLaptop.notes)")
        #expect(note.contains("stamped up to 2 d 0 h ahead") && note.contains("--max-skew") && note.contains("--restamp"), "\(note)")
        try phone.put(["v": 3], entity: Self.notes, id: RecordID("c1"))
        let fromPhone = try await phone.sync(with: HubTransport(folder: hub))
        #expect(fromPhone.pushed == 1 && fromPhone.notes.contains { $0.hasPrefix("quarantined 1 change") }, "\(fromPhone)")
        _ = try await laptop.sync(with: HubTransport(folder: hub))
        for store in [laptop, phone] {
            #expect(try Self.ids(store) == ["b1", "b2", "c1"], "\(store.path)")
        }
        // Once this clock reaches the stamp (here: a larger bound), it comes in.
        var options = SyncOptions()
        options.maximumClockSkewMilliseconds = 3 * Self.day
        let later = try await laptop.sync(with: HubTransport(folder: hub), options: options)
        #expect(later.notes.allSatisfy { !$0.hasPrefix("quarantined") }, "\(later)")
        #expect(try Self.ids(laptop) == ["b1", "b2", "c1", "future"])
    }

    @Test func aFixedClockPublishesNothingStampedAheadUntilItRestamps() async throws {
        let directory = try TemporaryDirectory()
        let hub = directory.subpath("hub")
        try await Hub.create(in: FolderHubStorage(root: hub), openToAnyWriter: true)
        var laptop = try Self.store(directory, "laptop")
        try laptop.put(["v": "shared"], entity: Self.notes, id: RecordID("shared"))
        _ = try await laptop.sync(with: HubTransport(folder: hub))
        // Offline, its clock runs two days ahead; then the clock is fixed, and it edits again:
        // the later change keeps the future stamp (the clock never goes back).
        laptop = try Self.reopen(laptop, clock: OffsetClock(offsetMilliseconds: 2 * Int64(Self.day)))
        try laptop.put(["v": "ahead"], entity: Self.notes, id: RecordID("ahead"))
        laptop = try Self.reopen(laptop, clock: SystemClock())
        try laptop.put(["v": "after the fix"], entity: Self.notes, id: RecordID("fixed"))
        let former = laptop.replicaID

        do {
            _ = try await laptop.sync(with: HubTransport(folder: hub))
            Issue.record("changes stamped two days ahead were published")
        } catch {
            guard case .stampedAhead(_, _, let origin, _, let aheadBy, let limit) = error else { throw error }
            #expect(origin == former && aheadBy > Self.day && limit == Self.day)
            #expect(error.description.contains("--restamp") && error.description.contains("--max-skew"), "\(error)")
            #expect(error.description.contains("replica \(former.short)") && error.description.contains("ahead of this clock"), "\(error)")
        }
        let phone = try Self.store(directory, "phone")
        _ = try await phone.sync(with: HubTransport(folder: hub))
        #expect(try Self.ids(phone) == ["shared"], "nothing stamped ahead reached the hub")

        laptop.close()
        let report = try #require(try Store.restamp(at: laptop.path, maximumSkew: Self.day))
        #expect(report.formerReplica == former && report.rejournaled == 2, "\(report)")
        #expect(try Store.restamp(at: laptop.path, maximumSkew: Self.day) == nil, "nothing is left to re-stamp")
        laptop = try Store.open(at: laptop.path)
        defer { laptop.close() }
        let pushed = try await laptop.sync(with: HubTransport(folder: hub))
        #expect(pushed.pushed == 2, "\(pushed)")
        let pulled = try await phone.sync(with: HubTransport(folder: hub))
        #expect(pulled.notes.allSatisfy { !$0.hasPrefix("quarantined") }, "\(pulled)")
        #expect(try Self.ids(phone) == ["shared", "ahead", "fixed"])
        #expect(try phone.get(entity: Self.notes, id: RecordID("fixed")) == ["v": "after the fix"])
    }

    @Test func serveRefusesAChangeStampedAheadNamingTheReplica() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let ahead = try Self.store(directory, "ahead", clock: OffsetClock(offsetMilliseconds: 2 * Int64(Self.day)))
        try ahead.put(["v": "future"], entity: Self.notes, id: RecordID("future"))
        do {
            _ = try await ahead.sync(with: server.transport("shared"))
            Issue.record("the server accepted a change stamped two days ahead")
        } catch {
            let text = "\(error)"
            #expect(text.contains("replica \(ahead.replicaID.short)") && text.contains("2 d 0 h ahead"), "\(text)")
            #expect(text.contains("--max-skew") && text.contains("--restamp"), "\(text)")
        }
        let served = try Self.store(directory, "reader")
        _ = try await served.sync(with: server.transport("shared"))
        #expect(try Self.ids(served).isEmpty, "the server kept nothing of it")
    }
}
