import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// `GET /v1/stores/<name>/feed` on a real server on loopback: events as the journal grows, who
/// may subscribe, resuming with `Last-Event-ID`, a slow subscriber, and idle subscribers that
/// hold no thread.
@Suite(.serialized) struct RemoteFeedTests {
    let notes = try! EntityName("Note")

    /// The server's store `alice`, created.
    func hostedStore(_ server: RemoteServer) throws -> Store {
        try server.service.registry.storeCreatingIfMissing(named: StoreName("alice")).store
    }

    /// Checks that `events` cover journal positions `from + 1 … through`, each exactly once, in order.
    func expectCoverage(_ events: [FeedEvent], from start: UInt64 = 0, through end: UInt64) {
        var reached = start
        for event in events {
            #expect(event.after == reached, "an event starts after \(event.after), the one before ended at \(reached): \(events)")
            #expect(event.position.sequence > event.after, "\(event)")
            #expect(event.count == event.position.sequence - event.after)
            reached = event.position.sequence
        }
        #expect(reached == end, "\(events)")
    }

    @Test func aCommitIsDeliveredAsAnEventNamingItsPosition() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let store = try hostedStore(server)
        try store.put(["n": 1], entity: notes, id: RecordID("1"))
        let client = try await onThread { try FeedTestClient(port: server.port, store: "alice", token: RemoteServer.readOnly) }
        defer { client.close() }
        #expect(client.status == 200, "\(client.head)")
        #expect(client.head.lowercased().contains("content-type: text/event-stream"), "\(client.head)")
        // Subscribed without a position: only what comes next.
        try store.put(["n": 2], entity: notes, id: RecordID("2"))
        let events = try await onThread { try client.events(through: 2) }
        #expect(events.map(\.kind) == [.changes])
        expectCoverage(events, from: 1, through: 2)
        #expect(events.last?.position.hash == store.headHash)
        // The subscriber holds no connection slot and no connection thread.
        #expect(try await eventually { server.server.connectionCount == 0 })
        #expect(try await eventually { server.service.feeds.count == 1 })
    }

    @Test func onlyATokenThatCanReadTheStoreMaySubscribe() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        _ = try server.service.registry.storeCreatingIfMissing(named: StoreName("bob"))
        let port = server.port
        let noToken = try await onThread { try FeedTestClient(port: port, store: "bob", token: nil) }
        #expect(noToken.status == 401, "\(noToken.head)")
        let unknown = try await onThread { try FeedTestClient(port: port, store: "bob", token: "not-a-token-at-all") }
        #expect(unknown.status == 401, "\(unknown.head)")
        let aliceOnly = try await onThread { try FeedTestClient(port: port, store: "bob", token: RemoteServer.aliceOnly) }
        #expect(aliceOnly.status == 403, "\(aliceOnly.head)")
        let reader = try await onThread { try FeedTestClient(port: port, store: "bob", token: RemoteServer.readOnly) }
        defer { reader.close() }
        #expect(reader.status == 200, "\(reader.head)")
        #expect(try await eventually { server.service.feeds.count == 1 })
    }

    @Test func resumingWithLastEventIDAcrossADropAndARestartSkipsAndRepeatsNothing() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.subpath("server")
        var server = try RemoteServer(root: root)
        var store = try hostedStore(server)
        var events: [FeedEvent] = []
        // From the start of the journal (position 0), three commits.
        var client = try await onThread { [server] in try FeedTestClient(port: server.port, store: "alice", token: RemoteServer.readOnly, lastEventID: "0") }
        for index in 1...3 { try store.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("\(index)")) }
        events += try await onThread { [client] in try client.events(through: 3) }
        // The connection drops; two commits land meanwhile; the subscriber comes back.
        client.close()
        for index in 4...5 { try store.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("\(index)")) }
        let afterDrop = try #require(events.last?.position.eventID)
        client = try await onThread { [server] in try FeedTestClient(port: server.port, store: "alice", token: RemoteServer.readOnly, lastEventID: afterDrop) }
        try store.put(["n": 6], entity: notes, id: RecordID("6"))
        events += try await onThread { [client] in try client.events(through: 6) }
        // The server restarts (its subscribers are cut); three commits land while it is down.
        await server.stop()
        _ = try await onThread { [client] in try client.eventsUntilTheEnd() }
        client.close()
        let offline = try Store.open(at: root + "/alice")
        for index in 7...9 { try offline.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("\(index)")) }
        offline.close()
        server = try RemoteServer(root: root)
        defer { Task { [server] in await server.stop() } }
        store = try hostedStore(server)
        let afterRestart = try #require(events.last?.position.eventID)
        client = try await onThread { [server] in try FeedTestClient(port: server.port, store: "alice", token: RemoteServer.readOnly, lastEventID: afterRestart) }
        defer { client.close() }
        try store.put(["n": 10], entity: notes, id: RecordID("10"))
        events += try await onThread { [client] in try client.events(through: 10) }
        #expect(events.allSatisfy { $0.kind == .changes })
        expectCoverage(events, through: 10)
        #expect(events.last?.position.hash == store.headHash)

        // A position this store does not hold (another store's hash): one pull, from the head.
        let foreign = "5-0123456789abcdef"
        let stranger = try await onThread { [server] in try FeedTestClient(port: server.port, store: "alice", token: RemoteServer.readOnly, lastEventID: foreign) }
        defer { stranger.close() }
        let first = try await onThread { try stranger.nextEvent() }
        #expect(first?.kind == .pull && first?.reason == .unknownPosition && first?.position.sequence == 10, "\(String(describing: first))")
    }

    @Test func aSubscriberThatStopsReadingGetsOnePullNotABacklog() async throws {
        let directory = try TemporaryDirectory()
        var feed = ChangeFeedHub.Configuration()
        feed.maximumEventsBehind = 8
        feed.sendBufferBytes = 4096
        // Long enough that the stalled subscriber is not cut before it falls 8 events behind:
        // the 3 s this was cut it first when 8 commits took longer on a slow disk, and with no
        // subscriber left nothing more was announced (the test then waited 180 s and failed).
        feed.writeTimeout = .seconds(600)
        feed.heartbeatInterval = .seconds(1)
        let server = try RemoteServer(root: directory.subpath("server"), feed: feed)
        defer { Task { await server.stop() } }
        let store = try hostedStore(server)
        let client = try await onThread {
            try FeedTestClient(port: server.port, store: "alice", token: RemoteServer.readOnly, lastEventID: "0", receiveBufferBytes: 2048)
        }
        defer { client.close() }
        #expect(client.status == 200)
        // The client reads nothing while the store changes, one commit at a time (each
        // announced before the next, so each is an event of its own), until the server says it
        // told the subscriber to pull (or far more commits than the buffers hold).
        let alice = try StoreName("alice")
        var commits = 0
        while server.service.feeds.subscribersToldToPull == 0 && commits < 1000 {
            commits += 1
            try store.put(["n": .integer(Int64(commits)), "padding": .string(String(repeating: "x", count: 64))], entity: notes,
                          id: RecordID("\(commits)"))
            let position = store.headSequence
            // A generous deadline: on a machine whose two cores other suites keep busy, the
            // server's feed thread (which writes to the stalled subscriber until its write
            // timeout) has been seen to take over 30 s to announce one commit.
            try #require(try await eventually(within: .seconds(180)) { server.service.feeds.announcedPosition(of: alice) >= position })
        }
        #expect(server.service.feeds.subscribersToldToPull == 1, "after \(commits) commits")
        // Now it reads: what fit in the buffers, then one pull that covers the rest, then the
        // end (a server that kept a backlog would send events up to the head instead).
        let head = store.headSequence
        let events = try await onThread { () throws -> [FeedEvent] in
            var events: [FeedEvent] = []
            while let event = try client.nextEvent() {
                events.append(event)
                if event.kind == .pull || event.position.sequence >= head { break }
            }
            return events
        }
        let pull = try #require(events.last)
        #expect(pull.kind == .pull && pull.reason == .behind, "\(events.suffix(3))")
        #expect(events.dropLast().allSatisfy { $0.kind == .changes })
        #expect(events.count < commits, "a backlog of \(events.count) events for \(commits) commits")
        expectCoverage(events, through: pull.position.sequence)
        if pull.kind == .pull {
            #expect(try await onThread { try client.nextEvent() } == nil, "the feed goes on after a pull")
            #expect(try await eventually { server.service.feeds.count == 0 })
        }
    }

    @Test func aThousandIdleSubscribersHoldNoThread() async throws {
        OpenFileLimit.raiseToHardLimit()
        try #require(OpenFileLimit.current > 2500, "the open-file limit is too low for this test")
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let store = try hostedStore(server)
        let port = server.port
        // One subscriber first, so the feed's own thread is counted in the baseline.
        let first = try await onThread { try FeedTestClient(port: port, store: "alice", token: RemoteServer.readOnly) }
        #expect(try await eventually { server.server.connectionCount == 0 })
        let baseline = threadCount()
        let clients = try await onThread {
            try (1..<1000).map { _ in try FeedTestClient(port: port, store: "alice", token: RemoteServer.readOnly) }
        } + [first]
        defer { for client in clients { client.close() } }
        #expect(clients.allSatisfy { $0.status == 200 })
        // (The head is sent just before the socket changes hands.)
        #expect(try await eventually { server.service.feeds.count == 1000 && server.server.connectionCount == 0 })
        // The handshakes' threads end (the handler threads after their idle seconds): what is
        // left is what the subscribers cost, nothing (some slack for other suites' threads).
        #expect(try await eventually { threadCount() <= baseline + 8 }, "\(threadCount()) threads, \(baseline) before")
        // And they still hear of a commit.
        try store.put(["n": 1], entity: notes, id: RecordID("1"))
        let heard = try await onThread { try clients.map { try $0.nextEvent()?.position.sequence } }
        #expect(heard.allSatisfy { $0 == 1 })
    }
}
