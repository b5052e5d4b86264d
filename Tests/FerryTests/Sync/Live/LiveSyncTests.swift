import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// The library's sync loop between two store folders in this process: each edit arrives by the
/// watchers' word (the interval is ten minutes, so no round is due meanwhile), and stop() ends it.
@Suite struct LiveSyncTests {
    func options() -> LiveSync.Options {
        var options = LiveSync.Options()
        options.interval = .seconds(600)
        return options
    }

    @Test func handEditsAndWritesOnEitherSideArriveWithNoRoundDue() async throws {
        let directory = try TemporaryDirectory()
        let (a, b) = try twoStores(in: directory)
        defer { a.close() }
        let live = LiveSync(store: a, peer: .store(b), options: options())
        live.start()
        for n in 1...3 {
            try handEdit(a.path, "n\(n)", #"{"title": "from a \#(n)"}"#)
            #expect(await waitForRounds(of: live) { recordFile(b, "n\(n)", contains: "from a \(n)") }, "hand edit \(n) on a reached b")
        }
        try handEdit(b, "n2", #"{"title": "edited on b"}"#)
        #expect(await waitForRounds(of: live) { recordFile(a.path, "n2", contains: "edited on b") }, "a hand edit on the peer")
        _ = try a.put(.object(["title": .string("put on a")]), entity: EntityName("Note"), id: RecordID("n9"))
        #expect(await waitForRounds(of: live) { recordFile(b, "n9", contains: "put on a") }, "a write through the library")
        await live.stop()
        #expect(try a.get(entity: EntityName("Note"), id: RecordID("n1")) == .object(["title": .string("from a 1")]), "journaled on a")
    }

    @Test func stopReturnsWithTheIntervalFarAwayAndEndsTheWatchersThreads() async throws {
        let directory = try TemporaryDirectory()
        let (a, b) = try twoStores(in: directory)
        defer { a.close() }
        let live = LiveSync(store: a, peer: .store(b), options: options())
        live.start()
        for await event in live.events {
            if case .synced = event { break }
        }
        #expect(live.isWatching)
        // Waiting for the next round, ten minutes away: stop() must not wait for it (the
        // deadline below would end the test first).
        let stopped = Task {
            await live.stop()
            return true
        }
        let watchdog = Deadline.cancel(stopped, after: 300)
        defer { watchdog.cancel() }
        #expect(await stopped.value)
        var rest = 0
        for await _ in live.events { rest += 1 }
        #expect(rest <= 1, "the events finished")
        #expect(try await eventually { !live.isWatching }, "the watchers' threads ended")
        // A change after stop() starts nothing.
        try handEdit(a.path, "late", #"{"t": 1}"#)
        live.start()
        #expect(!live.isWatching)
    }

    /// 2,000 writes, not 10,000: the rounds are what is counted, and each written record costs a
    /// debug build a journaled hand edit and a copy (StoreWatcherTests has the 10,000-write burst).
    @Test func aBurstOfWritesIsAFewRounds() async throws {
        let directory = try TemporaryDirectory()
        let (a, b) = try twoStores(in: directory)
        defer { a.close() }
        let rounds = RoundCounter()
        // The first round is held until every file is written, so the burst lands while a round runs.
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let liveOptions = options()
        let live = LiveSync(store: a, peer: .store(b), options: liveOptions) {
            if rounds.add() == 1 { for await _ in gate { break } }
            return try await LiveSync.defaultRound(store: a, peer: .store(b), options: liveOptions)
        }
        live.start()
        for n in 0..<2_000 { try handEdit(a.path, "n\(n)", #"{"n": \#(n)}"#) }
        open.yield()
        #expect(await waitForRounds(of: live, seconds: 300) { recordFile(b, "n1999", contains: "1999") })
        await live.stop()
        #expect(try Store.open(at: b).ids(of: EntityName("Note")).count == 2_000)
        #expect(rounds.value <= 4, "\(rounds.value) rounds for 2,000 writes")
    }
}

final class RoundCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// Counts one; returns the count.
    func add() -> Int { lock.withLock { count += 1; return count } }
    var value: Int { lock.withLock { count } }
}
