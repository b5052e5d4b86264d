import Testing
@testable import Ferry

/// The S3 hub's polling schedule is a pure function: no clock in these tests.
@Suite struct PollScheduleTests {
    @Test func aboutASecondAfterActivityThenDoublingUpToTheInterval() {
        let schedule = PollSchedule(interval: .seconds(30))
        let delays = (0..<8).map { schedule.delay(afterQuietRounds: $0) }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30), .seconds(30)])
        #expect(schedule.delay(afterQuietRounds: 10_000) == .seconds(30), "no overflow however long it is idle")
    }

    /// A round that moved something is followed by one woken by its own writes: that echo must
    /// not back the next look off to two seconds (an S3 hub's edits then took 2 s, not 1).
    @Test func theEchoOfARoundThatMovedSomethingIsNotAQuietLook() {
        var quiet = LiveSync.quietRounds(after: 3, changedAnything: true, causes: [.peerChanged])
        #expect(quiet == 0)
        quiet = LiveSync.quietRounds(after: quiet, changedAnything: false, causes: [.storeChanged])
        #expect(quiet == 0)
        #expect(PollSchedule(interval: .seconds(30)).delay(afterQuietRounds: quiet) == .seconds(1))
        // A quiet round at the deadline, or one the peer or the app woke, backs off.
        #expect(LiveSync.quietRounds(after: 0, changedAnything: false, causes: []) == 1)
        #expect(LiveSync.quietRounds(after: 1, changedAnything: false, causes: [.storeChanged, .woken]) == 2)
    }

    @Test func anIntervalShorterThanTheFirstDelayIsTheDelay() {
        let schedule = PollSchedule(interval: .milliseconds(500))
        #expect(schedule.delay(afterQuietRounds: 0) == .milliseconds(500))
        #expect(schedule.delay(afterQuietRounds: 5) == .milliseconds(500))
    }

    @Test func theDefaultWatchStaysWithinTheIdleHourBudget() {
        let defaultOptions = LiveSync.Options()
        let schedule = PollSchedule(first: defaultOptions.firstPoll, interval: defaultOptions.interval)
        // An idle round on an S3 hub is one listing of heads (S3LiveSyncTests counts it).
        #expect(schedule.requestsPerIdleHour(requestsPerRound: 1) == 120)
        #expect(schedule.requestsPerIdleHour(requestsPerRound: 1) <= PollSchedule.idleHourBudget)
        #expect(PollSchedule(interval: .seconds(10)).requestsPerIdleHour(requestsPerRound: 1) == 360)
        #expect(PollSchedule(interval: .seconds(600)).requestsPerIdleHour(requestsPerRound: 2) == 12)
        #expect(PollSchedule(interval: .seconds(7)).requestsPerIdleHour(requestsPerRound: 1) == 515, "rounded up")
    }
}
