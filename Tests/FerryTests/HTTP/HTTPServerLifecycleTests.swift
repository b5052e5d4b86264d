import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// Timeouts, the connection limit, many concurrent clients and graceful stop.
@Suite(.eachTestOnItsOwnThread) struct HTTPServerLifecycleTests {
    @Test func silentClientIsClosedAfterTheFirstRequestTimeout() async throws {
        let server = try TestServer { $0.firstRequestTimeout = .milliseconds(300) }
        let client = try RawClient(port: server.port)
        #expect(try await client.readResponse() == nil)  // closed, no answer
        #expect(server.server.connectionCount == 0)
        await server.stop()
    }

    @Test func stalledRequestGets408() async throws {
        // A body or a head that stops coming: the head deadline, and the body's grace after it.
        let server = try TestServer {
            $0.readTimeout = .milliseconds(300)
            $0.headTimeout = .milliseconds(300)
        }
        let client = try RawClient(port: server.port)
        try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
        let response = try #require(try await client.readResponse())
        #expect(response.code == 408)
        #expect(response.text.contains("request not received in time"))
        #expect(await client.isClosedByServer())
        #expect(server.requestsHandled == 0)

        let headOnly = try RawClient(port: server.port)
        try await headOnly.send("GET /hello HTTP/1.1\r\nHost:")
        #expect(try await headOnly.readResponse()?.code == 408)
        await server.stop()
    }

    @Test func aBodyThatStallsIsCutThoughItsRateDeadlineIsFarOff() async throws {
        // 60 MiB at the minimum rate may take 16 minutes; stopping altogether may not.
        let server = try TestServer { $0.bodyStallTimeout = .milliseconds(300) }
        let client = try RawClient(port: server.port, timeout: .seconds(5))
        try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(60 << 20)\r\n\r\n" + String(repeating: "a", count: 100_000))
        let response = try #require(try await client.readResponse())
        #expect(response.code == 408)
        #expect(server.requestsHandled == 0)
        await server.stop()
    }

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        let server = try TestServer { $0.idleTimeout = .milliseconds(300) }
        let client = try RawClient(port: server.port)
        try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await client.readResponse()?.code == 200)
        #expect(try await client.readResponse() == nil)  // closed after the idle timeout, silently
        await server.stop()
    }

    @Test func anIdleKeptAliveConnectionMakesRoomForANewOne() async throws {
        // (No protection for young connections here: the test may run faster than 100 ms.)
        let server = try TestServer {
            $0.maximumConnections = 2
            $0.evictionProtection = .zero
        }
        let first = try RawClient(port: server.port)
        let second = try RawClient(port: server.port)
        for client in [first, second] {
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse()?.code == 200)
        }
        // Both wait idle between requests (the server marks a connection idle just after its
        // response, so the test waits to see it): one is closed for the newcomer, who is served.
        #expect(try await eventually { server.server.idleConnectionCount == 2 })
        let third = try RawClient(port: server.port)
        try await third.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await third.readResponse()?.code == 200)
        await server.stop()
    }

    @Test func connectionsBeyondTheLimitGet503() async throws {
        // Both slots are taken by requests being answered, which are never closed for a
        // newcomer (a connection that is only waiting or sending may be: see the eviction tests).
        let server = try TestServer {
            $0.maximumConnections = 2
            $0.shutdownGracePeriod = .milliseconds(200)
        }
        let first = try RawClient(port: server.port)
        let second = try RawClient(port: server.port)
        for client in [first, second] { try await client.send("GET /very-slow HTTP/1.1\r\nHost: x\r\n\r\n") }
        #expect(try await eventually { server.server.answeringConnectionCount == 2 })
        let third = try RawClient(port: server.port)
        let refused = try #require(try await third.readResponse())
        #expect(refused.code == 503)
        #expect(refused.text.contains("too many connections"))
        await server.stop()
    }

    @Test func aRequestThatCameInOneReadIsNotClosedForANewcomer() async throws {
        // Its head never waited half-read, so only the head itself tells the server it is busy.
        let server = try TestServer {
            $0.maximumConnections = 1
            $0.shutdownGracePeriod = .milliseconds(100)
        }
        let busy = try RawClient(port: server.port)
        try await busy.send("GET /very-slow HTTP/1.1\r\nHost: x\r\n\r\n")
        try #require(try await eventually { server.requestsHandled == 1 })
        let newcomer = try RawClient(port: server.port, timeout: .seconds(10))
        #expect(try await newcomer.readResponse()?.code == 503)
        await server.stop()
    }

    @Test func oneAddressCannotTakeEverySlot() async throws {
        let server = try TestServer {
            $0.maximumConnectionsPerAddress = 3
            $0.headTimeout = .seconds(10)
        }
        let held = try (0..<3).map { _ in try RawClient(port: server.port) }
        for client in held { try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n") }
        #expect(try await eventually { server.server.connectionCount == 3 })
        let fourth = try RawClient(port: server.port)
        let refused = try #require(try await fourth.readResponse())
        #expect(refused.code == 503)
        #expect(refused.text.contains("too many connections from this address"))
        await server.stop()
    }

    @Test func aSlowHeadIsCutAfterTheHeadTimeout() async throws {
        let server = try TestServer { $0.headTimeout = .milliseconds(300) }
        let client = try RawClient(port: server.port)
        try await client.send("GET /hello HTTP/1.1\r\n")  // and nothing more (slowloris)
        let cut = try #require(try await client.readResponse())
        #expect(cut.code == 408)
        await server.stop()
    }

    @Test func oneHundredFiftyConcurrentKeepAliveClients() async throws {
        let server = try TestServer { $0.maximumConnectionsPerAddress = 200 }
        let clients = try (0..<150).map { _ in try RawClient(port: server.port) }
        for round in 0..<2 {
            let codes = try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, client) in clients.enumerated() {
                    group.addTask {
                        try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n\(1000 + index)")
                        let response = try await client.readResponse()
                        return response?.text == "\(1000 + index)" ? response?.code ?? 0 : -1
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(codes.count == 150 && codes.allSatisfy { $0 == 200 }, "round \(round)")
            #expect(server.server.connectionCount == 150)
        }
        await server.stop()
        #expect(server.server.connectionCount == 0)
    }

    @Test func gracefulStopFinishesTheRequestInFlight() async throws {
        let server = try TestServer()
        let busy = try RawClient(port: server.port)
        let idle = try RawClient(port: server.port)
        try await idle.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await idle.readResponse()?.code == 200)

        try await busy.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        // Child tasks (not `Task {}`, which would wait for the shared pool): the stop must
        // begin while the handler is still held.
        async let answer = busy.readResponse()
        try #require(try await eventually { server.requestsHandled == 2 })
        let began = ContinuousClock.now
        // The request is answered only once the server is stopping (it has let go of its port).
        async let stopping: Void = server.stop()
        try #require(try await eventually { server.server.port == nil })
        try await Task.sleep(for: .milliseconds(50))
        HeldRequests.gate.signal()
        await stopping
        let response = try #require(try await answer)
        #expect(response.code == 200 && response.text == "held\n")
        #expect(response.headers["Connection"] == "close")
        #expect(ContinuousClock.now - began < .seconds(20))  // not the 30 s grace period
        #expect(await idle.isClosedByServer())
        #expect(throws: SystemError.self) { try Socket.connect(host: "127.0.0.1", port: server.port) }
        await server.server.waitUntilStopped()  // returns at once when stopped
    }

    @Test func waitUntilStoppedReturnsAfterStop() async throws {
        let server = try TestServer()
        let waiter = Task { await server.server.waitUntilStopped(); return true }
        try await Task.sleep(for: .milliseconds(50))
        await server.stop()
        #expect(await waiter.value)
    }

    @Test func stopCutsAHandlerThatOverrunsTheGracePeriod() async throws {
        let server = try TestServer { $0.shutdownGracePeriod = .milliseconds(100) }
        let client = try RawClient(port: server.port)
        // The handler sleeps 20 s, far past the 100 ms grace period even on a loaded machine.
        try await client.send("GET /very-slow HTTP/1.1\r\nHost: x\r\n\r\n")
        try #require(try await eventually { server.requestsHandled == 1 })
        await server.stop()
        #expect(server.logged.contains { $0.contains("cutting 1 connection") })
    }

    @Test func streamingStopsWhenTheClientGoesAway() async throws {
        let outcome = HTTPServerLock<String>("")
        let server = HTTPServer(
            configuration: .init(port: 0),
            handler: HTTPClosureHandler { _ in
                HTTPResponse { writer in
                    do {
                        while true { try await writer.write([UInt8](repeating: 1, count: 65536)) }
                    } catch {
                        outcome.withLock { $0 = "\(error)" }
                        throw error
                    }
                }
            })
        let port = try server.start()
        let client = try RawClient(port: port)
        try await client.send("GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try await onThread { [socket = client.socket] in try socket.receive(upTo: 1000) }
        // Closing (not just shutting down) makes the client's kernel answer further data with a
        // reset, so the server's next send fails however the scheduling falls.
        client.close()
        // Polls for up to 30 s: generous, because other suites may be busy on this machine.
        for _ in 0..<3000 where outcome.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(outcome.withLock { $0 } == "the client connection closed")
        await server.stop()
    }
}
