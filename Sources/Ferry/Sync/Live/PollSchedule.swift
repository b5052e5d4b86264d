/// When a watching replica looks again at a peer that cannot tell it of a change (an S3 hub:
/// no notification works everywhere): about a second after activity, then twice as long after
/// each quiet round, up to the interval. A pure function of the quiet rounds, so that the
/// schedule and its cost are known without a clock.
///
/// ```swift
/// let schedule = PollSchedule(interval: .seconds(30))
/// schedule.delay(afterQuietRounds: 0)   // 1 s: something moved in the last round
/// schedule.delay(afterQuietRounds: 3)   // 8 s
/// schedule.delay(afterQuietRounds: 9)   // 30 s: idle, the interval
/// schedule.requestsPerIdleHour(requestsPerRound: 1)   // 120
/// ```
package struct PollSchedule: Sendable, Equatable {
    /// The delay after activity.
    package var first: Duration
    /// The longest delay: the watch's interval.
    package var interval: Duration

    /// The budget a default watch stays within: requests an idle hour to a peer it polls.
    package static let idleHourBudget = 120

    package init(first: Duration = .seconds(1), interval: Duration) {
        self.first = first
        self.interval = interval
    }

    /// How long to wait before the next round, after `quietRounds` rounds in a row in which
    /// nothing moved (0: the last round moved something, or the store changed).
    package func delay(afterQuietRounds quietRounds: Int) -> Duration {
        guard first < interval else { return interval }
        var delay = first
        for _ in 0..<max(0, quietRounds) {
            delay *= 2
            if delay >= interval { return interval }
        }
        return delay
    }

    /// What an idle hour costs once the delays have grown to the interval: the rounds an hour
    /// takes at the interval, times what a quiet round costs (from the peer's
    /// ``RequestCounting``), rounded up.
    package func requestsPerIdleHour(requestsPerRound: Int) -> Int {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        guard seconds > 0 else { return Int.max }
        return Int((3600 / seconds).rounded(.up)) * requestsPerRound
    }
}
