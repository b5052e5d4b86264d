import FerryTestSupport
import FerryURLSession
import Foundation
import Testing
@testable import Ferry

/// A transport that forwards to another and fails at a chosen moment, as a client killed in
/// the middle of a sync leaves things: whatever the server acknowledged is durable there, and
/// no checkpoint was written.
final class FailingTransport: SyncTransport, @unchecked Sendable {
    let inner: any SyncTransport
    let failOnPush: Int?
    let failOnPage: Int?
    let beforePush: (@Sendable (Int) async -> Void)?
    private(set) var pushes = 0
    private(set) var pages = 0

    init(_ inner: any SyncTransport, failOnPush: Int? = nil, failOnPage: Int? = nil, beforePush: (@Sendable (Int) async -> Void)? = nil) {
        self.inner = inner
        self.failOnPush = failOnPush
        self.failOnPage = failOnPage
        self.beforePush = beforePush
    }

    var peerDescription: String { inner.peerDescription }
    func open() async throws(SyncError) -> PeerInfo { try await inner.open() }
    func close() async { await inner.close() }
    func frontier() async throws(SyncError) -> ReplicaFrontier { try await inner.frontier() }
    func liveRecordCount() async throws(SyncError) -> Int { try await inner.liveRecordCount() }
    func resume(from mark: PeerMark) async throws(SyncError) -> UInt64? { try await inner.resume(from: mark) }
    func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch {
        pages += 1
        if pages == failOnPage { throw .transport("killed while pulling") }
        return try await inner.changes(after: position, excluding: knowledge, limit: limit)
    }
    func push(_ changes: [Change], maximumSkew: UInt64, continuing mark: PeerMark?) async throws(SyncError) -> PushResult {
        pushes += 1
        await beforePush?(pushes)
        if pushes == failOnPush { throw .transport("killed while pushing") }
        return try await inner.push(changes, maximumSkew: maximumSkew, continuing: mark)
    }
    func saveCheckpoint(_ checkpoint: PeerCheckpoint) async throws(SyncError) { try await inner.saveCheckpoint(checkpoint) }
}

/// An HTTP client on URLSession that calls `onFailure` each time a request gets no answer,
/// before the failure goes back to the retry loop.
private final class FailureHookClient: HTTPClient, @unchecked Sendable {
    let inner = URLSessionHTTPClient()
    let onFailure: @Sendable () -> Void

    init(onFailure: @escaping @Sendable () -> Void) { self.onFailure = onFailure }

    func send(_ request: HTTPClientRequest) async throws(HTTPClientFailure) -> HTTPClientResponse {
        do { return try await inner.send(request) } catch {
            onFailure()
            throw error
        }
    }
}

/// Interrupted syncs resume without duplicates or losses: a client cut off mid-push or
/// mid-pull, and a server restarted in the middle of a sync.
@Suite(.serialized) struct RemoteResumeTests {
    let notes = try! EntityName("Note")

    func fill(_ store: Store, count: Int, prefix: String = "") throws {
        for index in 0..<count { try store.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("\(prefix)\(index)")) }
    }

    func expectNoDuplicates(_ store: Store) throws {
        let identities = try store.journalEntries().map(\.change.identity)
        #expect(Set(identities).count == identities.count)
    }

    @Test func aClientCutOffMidPushResumes() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try Store.create(at: directory.subpath("a"))
        try fill(a, count: 50)
        var options = SyncOptions()
        options.pageSize = 10
        let cut = FailingTransport(try server.transport("s"), failOnPush: 3)
        await #expect(throws: SyncError.self) { try await SyncEngine(store: a, transport: cut, options: options).run() }
        let hosted = try server.store("s")
        #expect(hosted.headSequence == 20)  // two pages landed, atomically each
        #expect(try a.checkpoint(for: hosted.replicaID) == nil)

        let report = try await sync(a, with: server, "s", options: options)
        #expect(report.pushed == 30)
        #expect(try allRecords(hosted) == allRecords(a))
        try expectNoDuplicates(hosted)
        #expect(try await sync(a, with: server, "s").plan == .upToDate)
    }

    @Test func aClientCutOffMidPullResumes() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try Store.create(at: directory.subpath("a"))
        try fill(a, count: 50)
        try await sync(a, with: server, "s")
        let b = try Store.create(at: directory.subpath("b"))
        var options = SyncOptions()
        options.pageSize = 10
        let cut = FailingTransport(try server.transport("s"), failOnPage: 3)
        await #expect(throws: SyncError.self) { try await SyncEngine(store: b, transport: cut, options: options).run() }
        #expect(b.headSequence == 20)
        // The next sync reconciles what arrived with the rest, with no duplicates.
        let report = try await sync(b, with: server, "s", options: options)
        #expect(report.pulled == 30)
        #expect(try allRecords(b) == allRecords(a))
        try expectNoDuplicates(b)
        try expectNoDuplicates(try server.store("s"))
    }

    @Test func aServerRestartedMidSyncIsRiddenOutByRetries() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.subpath("server")
        let first = try RemoteServer(root: root)
        let port = first.port
        let replacement = HTTPServerLock<RemoteServer?>(nil)
        let a = try Store.create(at: directory.subpath("a"))
        try fill(a, count: 40)
        var options = SyncOptions()
        options.pageSize = 10
        // Before the third push the server stops; it comes back on the same port once a request
        // has met it stopped, and the client's retries carry the sync over the gap.
        let stopped = HTTPServerLock(false)
        let client = FailureHookClient { () in
            guard stopped.withLock({ $0 }) else { return }
            replacement.withLock { server in
                if server == nil { server = try? RemoteServer(root: root, port: port) }
            }
        }
        var configuration = HTTPTransport.Configuration()
        configuration.retry = RetryPolicy(attempts: 8, firstDelay: 0.1, maximumDelay: 0.4)
        let inner = try HTTPTransport(url: first.url("s"), token: RemoteServer.readWrite, client: client, configuration: configuration)
        let transport = FailingTransport(inner) { push in
            guard push == 3 else { return }
            await first.stop()
            stopped.withLock { $0 = true }
        }
        let report = try await SyncEngine(store: a, transport: transport, options: options).run()
        #expect(report.pushed == 40)
        let second = try #require(replacement.withLock { $0 })
        defer { Task { await second.stop() } }
        let hosted = try second.store("s")
        #expect(try allRecords(hosted) == allRecords(a))
        try expectNoDuplicates(hosted)
        // The checkpoint survived on both sides: the next sync is a no-op.
        #expect(try await sync(a, with: second, "s").plan == .upToDate)
    }

    @Test func aServerRestartedBetweenSyncsKeepsCheckpoints() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.subpath("server")
        let a = try Store.create(at: directory.subpath("a"))
        try fill(a, count: 5)
        let first = try RemoteServer(root: root)
        try await sync(a, with: first, "s")
        await first.stop()
        let second = try RemoteServer(root: root)
        defer { Task { await second.stop() } }
        #expect(try await sync(a, with: second, "s").plan == .upToDate)
        try a.put(["n": 9], entity: notes, id: RecordID("9"))
        let report = try await sync(a, with: second, "s")
        #expect(report.plan == .incremental)
        #expect(report.pushed == 1)
    }

    @Test func aPushRepeatedAfterALostReplyChangesNothing() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try Store.create(at: directory.subpath("a"))
        try fill(a, count: 3)
        let changes = try a.journalEntries().map(\.change)
        let transport = try server.transport("s")
        let opened = try await transport.open()
        let first = try await transport.push(changes, maximumSkew: 86_400_000, continuing: opened.mark)
        let again = try await transport.push(changes, maximumSkew: 86_400_000, continuing: first.markAfter)
        #expect(first.applied == 3)
        #expect(first.markAfter != nil && first.markAfter != opened.mark)
        #expect(again.applied == 0)
        #expect(again.alreadyKnown == 3)
        #expect(again.markAfter == first.markAfter, "a push that adds nothing leaves the mark where it was")
        await transport.close()
    }
}
