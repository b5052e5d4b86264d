/// How often, and after how long, the HTTP transport tries a request again after a
/// connection error or a `5xx`: exponential backoff with jitter, bounded in attempts.
///
/// ```swift
/// let policy = RetryPolicy(attempts: 5, firstDelay: 0.1, maximumDelay: 2)
/// policy.delay(beforeAttempt: 3)   // about 0.2 s
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (1 means no retry).
    public var attempts: Int
    /// The wait before the second attempt, in seconds; each later wait doubles.
    public var firstDelay: Double
    /// The longest wait between two attempts, in seconds.
    public var maximumDelay: Double

    /// Makes a policy; the default tries 6 times over about 3 seconds.
    public init(attempts: Int = 6, firstDelay: Double = 0.1, maximumDelay: Double = 1.6) {
        self.attempts = max(1, attempts)
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
    }

    /// No retries.
    public static let none = RetryPolicy(attempts: 1)

    /// The wait before attempt `attempt` (2, 3, …), with up to 25% jitter so clients that
    /// failed together do not come back together.
    public func delay(beforeAttempt attempt: Int, jitter: Double = Double.random(in: 0...1)) -> Double {
        let base = min(maximumDelay, firstDelay * Double(1 << min(max(attempt - 2, 0), 20)))
        return base * (1 + 0.25 * jitter)
    }

    /// Whether a response status is worth another attempt: a proxy that lost the server
    /// (`502`, `504`) or a server that is busy (`503`). A `500` is a failure that another
    /// attempt would only repeat.
    public static func isRetryable(status: Int) -> Bool {
        status == 502 || status == 503 || status == 504
    }
}
