import Foundation

/// The hand-over between a connection's thread, which does blocking socket I/O, and the task
/// that runs the handler: the task posts the response and then each chunk of a streamed body;
/// the thread waits for them, sends them, and resumes the writer once a chunk is out.
///
/// One exchange serves one request. The thread owns the socket; the task never touches it,
/// so a slow client blocks only its connection's thread, never the cooperative pool.
final class HTTPExchange: @unchecked Sendable {
    /// What the connection's thread receives after the response.
    enum BodyEvent {
        /// A chunk to send; call ``HTTPExchange/chunkSent(_:)`` when done.
        case chunk([UInt8])
        /// The stream finished.
        case end
        /// The stream threw; the response must be cut short.
        case failed(any Error)
    }

    // All state below is guarded by `condition`.
    private let condition = NSCondition()
    private var response: HTTPResponse?
    private var events: [BodyEvent] = []
    private var waitingWriter: CheckedContinuation<Bool, Never>?
    private var closed = false

    /// Runs `handler` on `request` in a new task, then its streamed body if `streamBody`.
    func start(_ handler: any HTTPHandler, _ request: HTTPRequest, streamBody: Bool, threads: HTTPHandlerThreads) {
        threads.startTask {
            let response = await handler.handle(request)
            self.post(response)
            guard streamBody, case .stream(let produce) = response.body else { return }
            do {
                try await produce(HTTPBodyWriter(exchange: self))
                self.post(.end)
            } catch {
                self.post(.failed(error))
            }
        }
    }

    // MARK: - Task side

    private func post(_ response: HTTPResponse) {
        condition.lock()
        self.response = response
        condition.signal()
        condition.unlock()
    }

    private func post(_ event: BodyEvent) {
        condition.lock()
        events.append(event)
        condition.signal()
        condition.unlock()
    }

    /// Queues a chunk and waits until the thread has sent it; `false` if the connection closed.
    func write(_ bytes: [UInt8]) async -> Bool {
        await withCheckedContinuation { continuation in
            condition.lock()
            if closed {
                condition.unlock()
                continuation.resume(returning: false)
                return
            }
            waitingWriter = continuation
            events.append(.chunk(bytes))
            condition.signal()
            condition.unlock()
        }
    }

    // MARK: - Thread side

    /// Blocks until the handler returns its response.
    func waitForResponse() -> HTTPResponse {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let response { return response }
            condition.wait()
        }
    }

    /// Blocks until the stream produces its next chunk or ends.
    func waitForBodyEvent() -> BodyEvent {
        condition.lock()
        defer { condition.unlock() }
        while events.isEmpty { condition.wait() }
        return events.removeFirst()
    }

    /// Resumes the writer of the last chunk: `true` if it was sent, `false` if the connection failed.
    func chunkSent(_ success: Bool) {
        condition.lock()
        let writer = waitingWriter
        waitingWriter = nil
        if !success { closed = true }
        condition.unlock()
        writer?.resume(returning: success)
    }

    /// Marks the connection gone: later writes fail at once.
    func close() {
        chunkSent(false)
    }
}
