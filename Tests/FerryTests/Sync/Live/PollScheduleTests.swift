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
