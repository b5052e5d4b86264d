import Foundation

/// A streamed response (a served store's change feed, a backend's realtime events) read over
/// a plain `http://` connection of its own: one thread connects, sends the request, reads the
/// head, and hands the body's bytes on as each `recv` returns them, de-chunked. While nothing
/// comes, the thread sleeps in `recv`: an idle feed costs no CPU. ``URLSessionHTTPClient``
/// (`FerryURLSession`) streams `http://` with it, and `https://` through libcurl's blocking
/// interface on Linux (`CurlHTTPStream`, as quiet) or `URLSession` elsewhere: `URLSession`'s
/// streaming on Linux keeps a core busy while the response is quiet.
///
/// ```swift
/// var request = HTTPClientRequest(method: .get, url: feedURL, headers: [("Accept", "text/event-stream")])
/// request.timeout = 60                       // a minute without a byte is a dead connection
/// let stream = try await SocketHTTPStream.open(request)
/// for try await bytes in stream.bytes { … }  // until the server ends it, or stream.cancel()
/// ```
package final class SocketHTTPStream: @unchecked Sendable {
    private let request: HTTPClientRequest
    private let host: String
    private let port: Int
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let lock = NSLock()
    /// The connection while it is open; guarded by `lock`, so that ``cancel()`` never shuts
    /// down a descriptor that was closed and reused.
    private var socket: Socket?
    private var cancelled = false

    private init(request: HTTPClientRequest, host: String, port: Int, continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation) {
        self.request = request
        self.host = host
        self.port = port
        self.continuation = continuation
    }

    /// Connects, sends `request` and returns once the response's head has arrived.
    /// - Parameter request: an `http://` request; its ``HTTPClientRequest/timeout`` is the
    ///   longest the connection may stay silent (10 minutes when `nil`).
    /// - Throws: ``HTTPClientFailure`` when no head came (refused, reset, silent, not HTTP).
    package static func open(_ request: HTTPClientRequest) async throws(HTTPClientFailure) -> HTTPClientStream {
        guard request.url.scheme?.lowercased() == "http", let host = request.url.host, !host.isEmpty else {
            throw HTTPClientFailure("\(request.url.absoluteString) is not an http:// URL", isRetryable: false)
        }
        let (bytes, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let stream = SocketHTTPStream(request: request, host: host, port: request.url.port ?? 80, continuation: continuation)
        continuation.onTermination = { _ in stream.cancel() }
        let status = try await StreamReadingThread.start(named: "ferry stream", cancel: { stream.cancel() }) { head in
            stream.run(reportingHead: head)
        }
        return HTTPClientStream(status: status, bytes: bytes, cancel: { stream.cancel() })
    }

    /// Closes the connection: the reading thread wakes, the bytes end, the thread exits.
    func cancel() {
        lock.withLock {
            cancelled = true
            socket?.shutdown(.readWrite)
        }
    }

    /// The thread's work: the exchange, then the body until it ends, fails or is cancelled.
    private func run(reportingHead waiting: CheckedContinuation<Result<HTTPStatus, HTTPClientFailure>, Never>) {
        var waitingForHead: CheckedContinuation<Result<HTTPStatus, HTTPClientFailure>, Never>? = waiting
        var open: Socket?
        defer {
            if let open {
                lock.withLock { socket = nil }
                open.close()
            }
        }
        do throws(HTTPClientFailure) {
            let connection = try connect()
            open = connection
            try send(on: connection)
            var received: [UInt8] = []
            var headEnd: Int?
            while headEnd == nil {
                guard received.count < HTTPResponseHead.maximumBytes else {
                    throw HTTPClientFailure("\(host):\(port) sent a response head over 64 KiB", isRetryable: false)
                }
                let bytes = try receive(on: connection)
                if bytes.isEmpty { throw HTTPClientFailure("\(host):\(port) closed the connection before answering", isRetryable: true) }
                received += bytes
                headEnd = HTTPResponseHead.end(in: received[...])
            }
            let end = headEnd ?? received.count
            let head = try HTTPResponseHead(parsing: received[..<end])
            waitingForHead?.resume(returning: .success(head.status))
            waitingForHead = nil
            try forwardBody(head.framing, from: connection, startingWith: received[end...])
            continuation.finish()
        } catch {
            if let waiting = waitingForHead {
                waiting.resume(returning: .failure(error))
            }
            // After cancel(), the end of the bytes is the end the reader asked for.
            if lock.withLock({ cancelled }) { continuation.finish() } else { continuation.finish(throwing: error) }
        }
    }

    /// Hands on the body's payload as it arrives, until its framing says it ended.
    private func forwardBody(_ framing: HTTPResponseHead.BodyFraming, from connection: Socket, startingWith first: ArraySlice<UInt8>) throws(HTTPClientFailure) {
        var chunks = ChunkedBodyDecoder()
        var remaining = Int.max
        if case .length(let length) = framing { remaining = length }
        var bytes = first
        while true {
            switch framing {
            case .chunked:
                let payload = try chunks.decode(bytes)
                if !payload.isEmpty { continuation.yield(payload) }
                if chunks.isFinished { return }
            case .length, .untilClose:
                let payload = bytes.prefix(remaining)
                if !payload.isEmpty { continuation.yield(Array(payload)) }
                remaining -= payload.count
                if remaining == 0 { return }
            }
            bytes = try receive(on: connection)[...]
            if bytes.isEmpty {
                if framing == .untilClose || lock.withLock({ cancelled }) { return }
                throw HTTPClientFailure("\(host):\(port) closed the connection in the middle of the response", isRetryable: true)
            }
        }
    }

    /// Opens the connection, unless cancelled meanwhile, with the request's timeout on reads and writes.
    private func connect() throws(HTTPClientFailure) -> Socket {
        let connection: Socket
        do { connection = try Socket.connect(host: host, port: port) } catch {
            throw HTTPClientFailure("cannot connect to \(host):\(port): \(error.message)", isRetryable: true)
        }
        let silence = Duration.milliseconds(Int((request.timeout ?? 600) * 1000))
        try? connection.setReceiveTimeout(silence)
        try? connection.setSendTimeout(silence)
        let stillWanted = lock.withLock {
            if cancelled { return false }
            socket = connection
            return true
        }
        guard stillWanted else {
            connection.close()
            throw HTTPClientFailure("cancelled", isRetryable: false)
        }
        return connection
    }

    private func send(on connection: Socket) throws(HTTPClientFailure) {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        let authority = request.url.port.map { "\(host.contains(":") ? "[\(host)]" : host):\($0)" } ?? host
        var head = "\(request.method.rawValue) \(target) HTTP/1.1\r\nHost: \(authority)\r\n"
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        if let body = request.body { head += "Content-Length: \(body.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        do { try connection.sendAll(Array(head.utf8) + (request.body ?? [])) } catch {
            throw HTTPClientFailure("cannot send to \(host):\(port): \(error.message)", isRetryable: true)
        }
    }

    /// The next bytes; empty at the end of the stream.
    private func receive(on connection: Socket) throws(HTTPClientFailure) -> [UInt8] {
        do { return try connection.receive(upTo: 64 << 10) } catch {
            if error.isWouldBlock {
                throw HTTPClientFailure("\(host):\(port) sent nothing for \(Int(request.timeout ?? 600)) s", isRetryable: true)
            }
            throw HTTPClientFailure("\(host):\(port): \(error.message)", isRetryable: true)
        }
    }
}
