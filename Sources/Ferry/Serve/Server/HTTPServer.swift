import Foundation

/// A small, hardened HTTP/1.1 server for `ferry serve`, generic over an ``HTTPHandler``.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), handler: handler) { line in
///     print(line)   // "GET /v1/status 200 17B 0.3ms 127.0.0.1:52814"
/// }
/// let port = try server.start()
/// // ... later, e.g. from a SIGTERM source:
/// await server.stop()
/// ```
///
/// Concurrency: one thread accepts connections and each connection is served on a thread of
/// its own with blocking I/O, at most ``HTTPServerConfiguration/maximumConnections`` of them
/// (a connection beyond that is answered `503` and closed). Handlers run as tasks on the
/// cooperative pool and never touch a socket. Keep-alive, pipelining (answered in order),
/// `Content-Length` and chunked request bodies, `Expect: 100-continue` and chunked streamed
/// responses are supported; malformed requests are answered with a status and a JSON
/// `{"error": "…"}` body (see ``HTTPRequestError``) and the connection is closed.
///
/// Each request is logged as one line through `log`: method, path (without the query),
/// status, body bytes sent, duration and the client's address — never a body or a header.
package final class HTTPServer: Sendable {
    private enum State {
        case ready
        case running(Listener)
        case stopping
        case stopped
    }

    /// What a running server holds: the listening socket's wake-up pipe and the accept thread's end.
    private struct Listener: Sendable {
        let port: Int
        let stopSignal: WakeupPipe
        let acceptorFinished: DispatchSemaphore
    }

    private let configuration: HTTPServerConfiguration
    private let handler: any HTTPHandler
    /// Where handlers run: threads of the server's own, not the cooperative pool.
    private let handlerThreads: HTTPHandlerThreads
    private let log: @Sendable (String) -> Void
    private let registry: HTTPConnectionRegistry
    private let budget: HTTPBodyBudget
    private let throttle = HTTPLogThrottle()
    private let state: HTTPServerLock<State>
    private let stopWaiters = HTTPServerLock<[CheckedContinuation<Void, Never>]>([])

    deinit {
        handlerThreads.stop()
        if case .running(let listener) = state.withLock({ $0 }) { listener.stopSignal.signal() }
    }

    /// Makes a server; nothing listens until ``start()``.
    /// - Parameters:
    ///   - configuration: address, port, limits and timeouts.
    ///   - handler: answers every well-formed request.
    ///   - log: receives one line per request and the odd operational message; must be thread-safe.
    package init(
        configuration: HTTPServerConfiguration = HTTPServerConfiguration(), handler: some HTTPHandler,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.handler = handler
        self.handlerThreads = HTTPHandlerThreads(maximum: 16)
        self.log = log
        self.registry = HTTPConnectionRegistry(
            capacity: configuration.maximumConnections, perAddress: configuration.maximumConnectionsPerAddress,
            perToken: configuration.maximumConnectionsPerToken, protection: configuration.evictionProtection)
        self.budget = HTTPBodyBudget(capacity: configuration.bodyBudgetBytes, perClient: configuration.bodyBudgetBytesPerClient)
        self.state = HTTPServerLock(.ready)
    }

    /// The port the server listens on, once started; `nil` before ``start()`` and after ``stop()``.
    package var port: Int? {
        state.withLock { state in
            if case .running(let listener) = state { return listener.port }
            return nil
        }
    }

    /// The number of connections being served.
    package var connectionCount: Int { registry.count }

    /// The number of kept-alive connections waiting between requests, the first closed when
    /// every slot is taken.
    package var idleConnectionCount: Int { registry.idleCount }

    /// The number of connections whose request is being answered (never closed for a newcomer).
    package var answeringConnectionCount: Int { registry.answeringCount }

    /// The bytes of the body budget that requests hold now (see
    /// ``HTTPServerConfiguration/bodyBudgetBytes``).
    package var bodyBytesReserved: Int { budget.inUse }

    /// Binds the configured address and starts accepting connections on a thread of its own.
    /// - Returns: the bound port (the one the system chose when the configuration says `0`).
    /// - Throws: ``HTTPServerError/cannotListen(host:port:_:)`` when the address cannot be bound,
    ///   ``HTTPServerError/alreadyStarted`` when called twice.
    @discardableResult
    package func start() throws(HTTPServerError) -> Int {
        let result: Result<Int, HTTPServerError> = state.withLock { state in
            guard case .ready = state else { return .failure(.alreadyStarted) }
            let host = configuration.host, requested = configuration.port
            let socket: Socket
            let stopSignal: WakeupPipe
            let port: Int
            do throws(SystemError) {
                socket = try Socket.listen(host: host, port: requested)
                do throws(SystemError) {
                    port = try socket.localAddress().port
                    stopSignal = try WakeupPipe()
                } catch {
                    socket.close()
                    throw error
                }
            } catch {
                return .failure(.cannotListen(host: host, port: requested, error))
            }
            let listener = Listener(port: port, stopSignal: stopSignal, acceptorFinished: DispatchSemaphore(value: 0))
            state = .running(listener)
            // The acceptor holds the server weakly: a server dropped without stop() (say, by
            // a test that failed early) ends its acceptor instead of keeping the process alive.
            let acceptor = Thread { [weak self] in
                while let server = self, server.acceptConnections(on: socket, stopSignal: stopSignal) {}
                socket.close()
                listener.acceptorFinished.signal()
            }
            acceptor.name = "ferry-http-accept"
            acceptor.start()
            return .success(port)
        }
        return try result.get()
    }

    /// Stops gracefully: stops accepting, lets requests under way finish and closes idle
    /// connections at once. Connections still busy after
    /// ``HTTPServerConfiguration/shutdownGracePeriod`` are cut. Returns once the listening
    /// socket is closed and every connection has ended (or been cut); calling it again, or
    /// concurrently, waits for the same stop.
    ///
    /// A handler that never returns keeps its connection's thread, even after the cut.
    package func stop() async {
        let listener: Listener? = state.withLock { state in
            switch state {
            case .ready:
                state = .stopped
                return nil
            case .running(let listener):
                state = .stopping
                return listener
            case .stopping, .stopped:
                return nil
            }
        }
        guard let listener else {
            await waitUntilStopped()
            return
        }
        registry.beginStopping()
        listener.stopSignal.signal()
        // The grace period counts from this call, and the cut fires from a Dispatch timer, so
        // it happens on time even when the cooperative pool (where this function resumes) is
        // busy with blocking work elsewhere.
        let (registry, log) = (registry, log)
        let cut = DispatchWorkItem {
            let busy = registry.count
            guard busy > 0 else { return }
            log("stop: cutting \(busy) connection(s) still busy after the grace period")
            registry.shutDownAll()
        }
        let (seconds, attoseconds) = configuration.shutdownGracePeriod.components
        let grace = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(grace), execute: cut)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                listener.acceptorFinished.wait()
                continuation.resume()
            }
        }
        if await !registry.waitUntilEmpty(timeout: configuration.shutdownGracePeriod + .seconds(1)) {
            cut.perform()
            _ = await registry.waitUntilEmpty(timeout: .seconds(1))
        }
        cut.cancel()
        state.withLock { $0 = .stopped }
        for waiter in stopWaiters.withLock({ waiters in defer { waiters = [] }; return waiters }) {
            waiter.resume()
        }
    }

    /// Waits until the server has stopped, for a CLI whose signal handler calls ``stop()``:
    ///
    /// ```swift
    /// let source = DispatchSource.makeSignalSource(signal: SIGTERM)
    /// source.setEventHandler { Task { await server.stop() } }
    /// source.resume()
    /// await server.waitUntilStopped()
    /// ```
    package func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let stopped = state.withLock { state in
                if case .stopped = state { return true }
                stopWaiters.withLock { $0.append(continuation) }
                return false
            }
            if stopped { continuation.resume() }
        }
    }

    // MARK: - Accepting

    /// Accepts until the stop signal; runs on the accept thread.
    /// Accepts what is waiting (or waits up to a second for it); returns false when the server
    /// is stopping or accepting failed for good.
    private func acceptConnections(on listener: Socket, stopSignal: WakeupPipe) -> Bool {
        do {
            guard let ready = try? Poll.waitForReadable([listener.rawValue, stopSignal.readDescriptor], timeout: .seconds(1))
            else {
                log("accept: poll failed; no longer accepting")
                return false
            }
            if ready[1] { return false }
            if !ready[0] { return true }
            for _ in 0..<64 {
                let accepted: (Socket, SocketAddress)?
                do throws(SystemError) {
                    accepted = try listener.accept()
                } catch {
                    // Out of descriptors (EMFILE) or similar: back off instead of spinning.
                    log("accept: \(error)")
                    _ = try? Poll.waitForReadable([stopSignal.readDescriptor], timeout: .milliseconds(100))
                    break
                }
                guard let (socket, peer) = accepted else { break }
                serve(socket, from: peer, stopSignal: stopSignal)
            }
        }
        return true
    }

    /// Starts a connection's thread, or answers `503` when the server is full or stopping.
    private func serve(_ socket: Socket, from peer: SocketAddress, stopSignal: WakeupPipe) {
        let id: HTTPConnectionRegistry.ID
        let group = HTTPClientGroup(host: peer.host)
        switch registry.add(socket, from: group, capped: !configuration.trustedProxies.contains(peer.host)) {
        case .success(let added):
            id = added.id
            if let evicted = added.evicted, let held = throttle.admit(evicted.description, now: .now) {
                log(HTTPLogThrottle.line("- - - 0B 0.0ms \(evicted) (closed, the longest silent of the client holding the most "
                    + "connections, to make room for \(peer))", held: held))
            }
        case .failure(let refusal):
            let reason = refusal == .addressFull ? "too many connections from this address" : "too many connections"
            let response = HTTPResponse.error(.serviceUnavailable, "\(reason); try again later")
            if case .bytes(let body) = response.body {
                let head = HTTPResponseEncoder.head(
                    status: response.status, headers: response.headers, framing: .length(body.count), closing: true,
                    version: .http11)
                try? socket.setSendTimeout(.milliseconds(100))
                _ = try? socket.sendAll(head + body)
            }
            socket.shutdown(.write)
            socket.close()
            if let held = throttle.admit(group.description, now: .now) {
                log(HTTPLogThrottle.line("- - 503 0B 0.0ms \(peer) (\(reason))", held: held))
            }
            return
        }
        let (configuration, handler, handlerThreads, log, registry, budget, throttle) =
            (configuration, handler, handlerThreads, log, registry, budget, throttle)
        let thread = Thread {
            // Built on its thread, which owns it (and its socket) from here on.
            HTTPConnection(
                socket: socket, peer: peer, id: id, configuration: configuration, handler: handler, handlerThreads: handlerThreads,
                log: log, registry: registry, stopSignal: stopSignal, budget: budget, throttle: throttle
            ).run()
        }
        thread.stackSize = 512 * 1024
        thread.name = "ferry-http-connection"
        thread.start()
    }
}
