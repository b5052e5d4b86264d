import Foundation

/// When, and after how long, a client tries a request again: one rule for every client Ferry
/// has (a `ferry serve` store, S3, PocketBase). A request is tried again after an answer whose
/// status is in ``retryableStatuses`` or a connection that failed in a way another attempt can
/// mend, with exponential backoff and jitter, bounded in attempts; a `Retry-After` the server
/// sent replaces the backoff, up to ``maximumRetryAfter``.
///
/// ```swift
/// let policy = RetryPolicy(attempts: 5, firstDelay: 0.1, maximumDelay: 2)
/// policy.delay(beforeAttempt: 3)                    // about 0.2 s
/// policy.delay(beforeAttempt: 2, retryAfter: "7")   // 7 s
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (1 means no retry).
    public var attempts: Int
    /// The wait before the second attempt, in seconds; each later wait doubles.
    public var firstDelay: Double
    /// The longest backoff between two attempts, in seconds.
    public var maximumDelay: Double
    /// The longest wait a server's `Retry-After` may ask for, in seconds; a longer one is cut
    /// to this (a sync should fail and say so rather than hang for an hour).
    public var maximumRetryAfter: Double

    /// Makes a policy; the default tries 6 times over about 3 seconds.
    public init(attempts: Int = 6, firstDelay: Double = 0.1, maximumDelay: Double = 1.6, maximumRetryAfter: Double = 30) {
        self.attempts = max(1, attempts)
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// No retries.
    public static let none = RetryPolicy(attempts: 1)

    /// The statuses worth another attempt, for every client: a server that is busy or rate
    /// limits (`429`, `503`), a proxy that lost the server (`502`, `504`), and `500`, which S3
    /// and PocketBase document as transient and which, for `ferry serve`, only repeats a request
    /// that is idempotent anyway (a repeated push skips what the store already has). Any other
    /// status is the answer: another attempt would get it again.
    public static let retryableStatuses: Set<HTTPStatus> = [
        .tooManyRequests, .internalServerError, .badGateway, .serviceUnavailable, .gatewayTimeout,
    ]

    /// Whether an answer with `status` is worth another attempt (see ``retryableStatuses``).
    public static func isRetryable(_ status: HTTPStatus) -> Bool {
        retryableStatuses.contains(status)
    }

    /// The backoff before attempt `attempt` (2, 3, …), with up to 25% jitter so clients that
    /// failed together do not come back together.
    public func delay(beforeAttempt attempt: Int, jitter: Double = Double.random(in: 0...1)) -> Double {
        let base = min(maximumDelay, firstDelay * Double(1 << min(max(attempt - 2, 0), 20)))
        return base * (1 + 0.25 * jitter)
    }

    /// The wait before attempt `attempt`: what the server's `Retry-After` asks for (seconds or
    /// an HTTP date), at most ``maximumRetryAfter``, or else the backoff.
    /// - Parameters:
    ///   - retryAfter: the header's value, if the answer had one.
    ///   - now: the time to read an HTTP date against, in milliseconds since 1970.
    public func delay(
        beforeAttempt attempt: Int, retryAfter: String?, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)
    ) -> Double {
        guard let seconds = retryAfter.flatMap({ Self.seconds(ofRetryAfter: $0, now: now) }) else {
            return delay(beforeAttempt: attempt)
        }
        return min(seconds, maximumRetryAfter)
    }

    /// The seconds a `Retry-After` value asks to wait (RFC 9110, 10.2.3): a whole number of
    /// seconds, or an HTTP date (a date past is no wait); `nil` for anything else.
    static func seconds(ofRetryAfter value: String, now: Int64) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) {
            return Double(text)
        }
        guard let date = HTTPDate.milliseconds(text) else { return nil }
        return Double(max(0, date - now)) / 1000
    }
}
