import Foundation
import Testing
import FerryTestSupport
import FerryURLSession
@testable import Ferry

/// Hubs under a live sync: a hub folder wakes the loop by the kernel's word (what a cloud
/// drive copies in late included), and an S3 hub, which cannot tell anyone, is listed on the
/// backoff schedule, fast while active.
@Suite(.serialized) struct LiveSyncHubTests {
    static let notes = try! EntityName("Note")

    @Test func aHubFolderThatChangesWakesTheLoop() async throws {
        let directory = try TemporaryDirectory()
        let hub = directory.subpath("hub")
        try await Hub.create(in: FolderHubStorage(root: hub), openToAnyWriter: true)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        defer { laptop.close(); phone.close() }
        var options = LiveSync.Options()
        options.interval = .seconds(600)
        let live = LiveSync(store: phone, peer: .hubFolder(hub), options: options)
        live.start()
        // What lands in the hub folder from elsewhere (another replica's one-off sync, a cloud
        // drive's copy) arrives with no round due.
        for n in 1...3 {
            _ = try laptop.put(.object(["title": .string("laptop \(n)")]), entity: Self.notes, id: RecordID("n\(n)"))
            _ = try await laptop.sync(with: HubTransport(storage: FolderHubStorage(root: hub)))
            #expect(await waitForRounds(of: live) { recordFile(phone.path, "n\(n)", contains: "laptop \(n)") }, "change \(n)")
        }
        // And the phone's own edits go to the hub by its store's watcher.
        try handEdit(phone.path, "p1", #"{"title": "phone"}"#)
        #expect(await waitForEvent(of: live) { event in
            // Whichever round it is: one that ran when the edit landed journals it too.
            if case .synced(let round) = event { return round.report.pushed == 1 }
            return false
        })
        let pulled = try await laptop.sync(with: HubTransport(storage: FolderHubStorage(root: hub)))
        #expect(pulled.pulled == 1)
        await live.stop()
        #expect(try await eventually { !live.isWatching }, "the hub folder's watcher ended")
    }

    @Test func twoReplicasWatchingAnS3HubSeeEachOthersEditsWhileActive() async throws {
        let directory = try TemporaryDirectory()
        guard let weed = try SeaweedFS.availableOrSkip() else { return }
        let server = try await SeaweedFS.start(in: directory.subpath("weed"), executable: weed)
        defer { server.stop() }
        try await server.createBucket("hub")
        let location = try S3Location(parsing: "s3://hub/notes")
        try await Hub.create(in: S3HubStorage(location: location, client: S3Client(configuration: server.configuration, httpClient: URLSessionHTTPClient())), openToAnyWriter: true)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        defer { laptop.close(); phone.close() }
        var options = LiveSync.Options()
        options.interval = .seconds(600)
        options.httpClient = URLSessionHTTPClient()
        options.s3 = server.configuration
        let onLaptop = LiveSync(store: laptop, peer: .s3Hub(location), options: options)
        let onPhone = LiveSync(store: phone, peer: .s3Hub(location), options: options)
        onLaptop.start()
        onPhone.start()
        // The phone's quiet rounds: one listing each, 6 requests an idle hour at 600 s.
        let quietRound = await waitForEvent(of: onPhone) { event in
            guard case .synced(let round) = event, round.report.requests == 1 else { return false }
            return round.requestsPerIdleHour == 6
        }
        #expect(quietRound, "a quiet round costs one listing: 6 requests an idle hour at 600 s")
        try handEdit(laptop.path, "n1", #"{"title": "from the laptop"}"#)
        #expect(await waitForRounds(of: onPhone) { recordFile(phone.path, "n1", contains: "from the laptop") }, "laptop → phone")
        try handEdit(phone.path, "n2", #"{"title": "from the phone"}"#)
        #expect(await waitForRounds(of: onLaptop) { recordFile(laptop.path, "n2", contains: "from the phone") }, "phone → laptop")
        await onLaptop.stop()
        await onPhone.stop()
    }
}
