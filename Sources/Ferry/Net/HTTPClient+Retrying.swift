/// What a request sent with retries came to: the last answer, or the last failure to get one,
/// with the attempts made.
struct RetriedExchange: Sendable {
    /// The last answer (perhaps a retryable status, once the attempts are spent), or why no
    /// attempt got one.
    var outcome: Result<HTTPClientResponse, HTTPClientFailure>
    /// The attempts made, the first included.
    var attempts: Int
}

extension HTTPClient {
    /// Sends a request, and again as `policy` says: the one retry loop of every client.
    ///
    /// Each attempt's request comes from `request(attempt)`, so a client that signs its
    /// requests (S3) signs each one anew. An answer whose status is retryable
    /// (``RetryPolicy/retryableStatuses``) or a failure that another attempt may mend
    /// (``HTTPClientFailure/isRetryable``) is tried again after the policy's wait (the server's
    /// `Retry-After` when it sent one), until the attempts are spent.
    /// - Parameters:
    ///   - policy: how often and after how long.
    ///   - counter: counts every attempt, when the client reports its requests.
    ///   - request: the request of attempt `n` (1, 2, …).
    func send(
        retrying policy: RetryPolicy, counting counter: RequestCounter? = nil, _ request: (Int) -> HTTPClientRequest
    ) async -> RetriedExchange {
        var attempt = 1
        while true {
            var next = request(attempt)
            if let names = next.responseHeaderNames, !names.contains("retry-after") {
                next.responseHeaderNames = names + ["retry-after"]
            }
            counter?.add()
            let wait: Double
            do throws(HTTPClientFailure) {
                let response = try await send(next)
                guard RetryPolicy.isRetryable(response.status), attempt < policy.attempts else {
                    return RetriedExchange(outcome: .success(response), attempts: attempt)
                }
                wait = policy.delay(beforeAttempt: attempt + 1, retryAfter: response.headers["retry-after"])
            } catch {
                guard error.isRetryable, attempt < policy.attempts else {
                    return RetriedExchange(outcome: .failure(error), attempts: attempt)
                }
                wait = policy.delay(beforeAttempt: attempt + 1)
            }
            try? await Task.sleep(nanoseconds: UInt64(max(0, wait) * 1e9))
            attempt += 1
        }
    }
}
