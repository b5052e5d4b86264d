import Foundation
import Testing

@testable import Ferry

/// `ferry serve` under a patient attacker (issue 49): a minimum rate that is a rate, a budget
/// held as bytes arrive, caps per token, fair eviction and a log that cannot be flooded.
@Suite(.eachTestOnItsOwnThread) struct HTTPServerFairnessTests {
    @Test func aBodyThatFallsBehindTheMinimumRateIsCutAfterTheGrace() async throws {
        // A byte now and then never stalls for long, so only the rate can cut it.
        let server = try TestServer {
            $0.minimumBodyBytesPerSecond = 1000
            $0.bodyRateGrace = .milliseconds(200)
            $0.bodyStallTimeout = .seconds(60)
        }
        let client = try RawClient(port: server.port, timeout: .seconds(20))
        try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nab")
        let response = try #require(try await client.readResponse())
        #expect(response.code == 408)
        #expect(server.requestsHandled == 0)
        await server.stop()
    }

    @Test func theBudgetHoldsWhatHasArrivedNotWhatIsAnnounced() async throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(60 << 20)\r\n\r\n" + String(repeating: "a", count: 1000))
        #expect(try await eventually { server.server.bodyBytesReserved > 0 })
        #expect(server.server.bodyBytesReserved < 1 << 20, "\(server.server.bodyBytesReserved) bytes held for 1,000 received")
        client.close()
        #expect(try await eventually { server.server.bodyBytesReserved == 0 })
        await server.stop()
    }

    @Test func eachClientHasAShareOfTheBudget() {
        let budget = HTTPBodyBudget(capacity: 1000, perClient: 600)
        #expect(budget.reserve(500, for: ["10.0.0.1", "token:a"]))
        #expect(!budget.reserve(200, for: ["10.0.0.2", "token:a"]), "one token over its share")
        #expect(!budget.reserve(200, for: ["10.0.0.1"]), "one address over its share")
        #expect(budget.reserve(400, for: ["10.0.0.2", "token:b"]))
        #expect(!budget.reserve(200, for: ["10.0.0.3", "token:c"]), "the whole budget spent")
        budget.release(500, for: ["10.0.0.1", "token:a"])
        #expect(budget.reserve(200, for: ["10.0.0.3", "token:a"]))
        #expect(budget.inUse == 600)
    }

    @Test func oneTokenHoldsAtMostItsShareOfTheConnections() async throws {
        let server = try TestServer {
            $0.maximumConnectionsPerToken = 1
            $0.shutdownGracePeriod = .milliseconds(200)
        }
        let holder = try RawClient(port: server.port)
        try await holder.send("GET /very-slow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n\r\n")
        #expect(try await eventually { server.server.answeringConnectionCount == 1 })
        let same = try RawClient(port: server.port)
        try await same.send("GET /hello HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n\r\n")
        let refused = try #require(try await same.readResponse())
        #expect(refused.code == 503 && refused.text.contains("this token"), "\(refused.text)")
        let other = try RawClient(port: server.port)
        try await other.send("GET /hello HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t2\r\n\r\n")
        #expect(try await other.readResponse()?.code == 200)
        await server.stop()
    }

    @Test func aNewConnectionIsSafeFromEvictionForAMoment() async throws {
        // The slot's holder has sent nothing, but it is younger than the protection.
        let server = try TestServer {
            $0.maximumConnections = 1
            $0.evictionProtection = .seconds(120)
        }
        let first = try RawClient(port: server.port)
        #expect(try await eventually { server.server.connectionCount == 1 })
        let second = try RawClient(port: server.port)
        #expect(try await second.readResponse()?.code == 503)
        try await first.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await first.readResponse()?.code == 200)
        await server.stop()
    }

    @Test func aSlowlorisConnectionMakesRoomForANewcomer() async throws {
        // Mid-head and silent since, not idle: it is closed all the same, as the longest silent.
        let server = try TestServer {
            $0.maximumConnections = 1
            $0.evictionProtection = .zero
            $0.headTimeout = .seconds(60)
        }
        let slow = try RawClient(port: server.port)
        try await slow.send("GET /hello HTTP/1.1\r\nHo")
        #expect(try await eventually { server.server.idleConnectionCount == 0 && server.server.connectionCount == 1 })
        let newcomer = try RawClient(port: server.port)
        try await newcomer.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await newcomer.readResponse()?.code == 200)
        #expect(server.logged.contains { $0.contains("to make room for") }, "\(server.logged)")
        await server.stop()
    }

    @Test func theVictimIsTheLongestSilentOfTheBiggestHolder() {
        let now = ContinuousClock.now
        let old = now.advanced(by: .seconds(-10))
        func candidate(_ id: UInt64, group: Int, token: Int = 0, opened: ContinuousClock.Instant = old, heard: Double) -> HTTPConnectionRegistry.Candidate {
            HTTPConnectionRegistry.Candidate(
                id: .init(testValue: id), groupCount: group, tokenCount: token, opened: opened,
                lastHeard: now.advanced(by: .milliseconds(Int(heard * 1000))))
        }
        let normal = candidate(1, group: 2, heard: -9)  // the normal client: silent longest, few connections
        let attackerRecent = candidate(2, group: 50, heard: -1)
        let attackerSilent = candidate(3, group: 50, heard: -5)
        let newborn = candidate(4, group: 60, opened: now.advanced(by: .milliseconds(-20)), heard: -0.02)
        let pick = HTTPConnectionRegistry.victim(
            among: [normal, attackerRecent, attackerSilent, newborn], now: now, protection: .milliseconds(100))
        #expect(pick == attackerSilent.id)
        // Between equal address groups, the token that holds more goes first.
        let byToken = HTTPConnectionRegistry.victim(
            among: [candidate(5, group: 3, token: 1, heard: -9), candidate(6, group: 3, token: 40, heard: -1)], now: now,
            protection: .milliseconds(100))
        #expect(byToken == .init(testValue: 6))
        #expect(HTTPConnectionRegistry.victim(among: [newborn], now: now, protection: .milliseconds(100)) == nil)
        // An attacker's newcomer cannot close a client's new connection; a client with one
        // connection can close an attacker's, however new, when the attacker holds many.
        let clientsNew = candidate(7, group: 1, opened: now.advanced(by: .milliseconds(-20)), heard: -0.02)
        #expect(HTTPConnectionRegistry.victim(among: [clientsNew], now: now, protection: .milliseconds(100), newcomerHolds: 50) == nil)
        #expect(HTTPConnectionRegistry.victim(among: [newborn], now: now, protection: .milliseconds(100), newcomerHolds: 1) == newborn.id)
        // A client's only connection, however old, is not closed for a group that holds more.
        #expect(HTTPConnectionRegistry.victim(among: [normal], now: now, protection: .milliseconds(100), newcomerHolds: 25) == nil)
        #expect(HTTPConnectionRegistry.victim(among: [normal], now: now, protection: .milliseconds(100), newcomerHolds: 2) == normal.id)
    }

    @Test func refusalsAreLoggedOnceASecondPerClientWithACount() {
        let throttle = HTTPLogThrottle(interval: .seconds(1))
        let start = ContinuousClock.now
        #expect(throttle.admit("127.0.0.3", now: start) == 0)
        for step in 1...99 { #expect(throttle.admit("127.0.0.3", now: start.advanced(by: .milliseconds(step * 5))) == nil) }
        #expect(throttle.admit("127.0.0.4", now: start.advanced(by: .milliseconds(10))) == 0, "another client has its own line")
        #expect(throttle.admit("127.0.0.3", now: start.advanced(by: .milliseconds(1001))) == 99)
        #expect(HTTPLogThrottle.line("x", held: 99).contains("99 more"))
    }

    @Test func aFloodOfRefusedConnectionsWritesFewLines() async throws {
        let server = try TestServer { $0.maximumConnectionsPerAddress = 1 }
        let holder = try RawClient(port: server.port)
        #expect(try await eventually { server.server.connectionCount == 1 })
        let started = ContinuousClock.now
        for _ in 0..<40 {
            let refused = try RawClient(port: server.port)
            #expect(try await refused.readResponse()?.code == 503)
        }
        let seconds = started.duration(to: .now).components.seconds
        let lines = server.logged.filter { $0.contains("too many connections") }
        #expect(lines.count >= 1 && lines.count <= Int(seconds) + 1, "\(lines.count) lines in \(seconds) s: \(lines)")
        holder.close()
        await server.stop()
    }

    @Test func anIPv6ClientIsItsSlash64() {
        #expect(HTTPClientGroup(host: "2001:db8:1:2::17").description == "2001:db8:1:2::/64")
        #expect(HTTPClientGroup(host: "2001:db8:1:2:ffff:0:0:9") == HTTPClientGroup(host: "2001:db8:1:2::9"))
        #expect(HTTPClientGroup(host: "2001:db8:1:3::9") != HTTPClientGroup(host: "2001:db8:1:2::9"))
        #expect(HTTPClientGroup(host: "::1").description == "0:0:0:0::/64")
        #expect(HTTPClientGroup(host: "::ffff:10.0.0.1").description == "10.0.0.1")
        #expect(HTTPClientGroup(host: "fe80::1%eth0").description == "fe80:0:0:0::/64")
        #expect(HTTPClientGroup(host: "127.0.0.2").description == "127.0.0.2")
        #expect(HTTPClientGroup.ipv6Groups("1::2::3") == nil)
        #expect(HTTPClientGroup.ipv6Groups("12345::") == nil)
    }
}
