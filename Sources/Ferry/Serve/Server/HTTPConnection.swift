/// One client connection, served on its own thread with blocking I/O: it reads bytes into the
/// ``HTTPRequestParser``, performs the actions the parser returns, hands each request to the
/// handler through an ``HTTPExchange`` and writes the response, one request at a time, in order.
///
/// It owns its socket and closes it on every path. Deadlines bound every wait: the first
/// request, each request once started, the idle time between requests, and every write.
final class HTTPConnection {
    private let socket: Socket
    private let peer: SocketAddress
    private let id: HTTPConnectionRegistry.ID
    private let configuration: HTTPServerConfiguration
    private let handler: any HTTPHandler
    private let handlerThreads: HTTPHandlerThreads
    private let log: @Sendable (String) -> Void
    private let registry: HTTPConnectionRegistry
    private let stopSignal: WakeupPipe
    private let budget: HTTPBodyBudget
    private let throttle: HTTPLogThrottle
    private let group: HTTPClientGroup
    /// Body bytes this connection holds of the budget, for the request under way.
    private var reservedBody = 0
    /// Whose shares of the budget the request under way holds: its address group, its token.
    private var reservedClients: [String] = []
    /// The most the request under way held, to give memory back after a large one.
    private var peakReserved = 0
    /// A large request has ended: memory is to be given back at the next safe point.
    private var trimPending = false
    /// When the body under way began (its head ended), and the bytes received since.
    private var bodyStarted: ContinuousClock.Instant?
    private var bodyReceived = 0
    /// Reads the body of the request under way as it arrives, when its handler asked for that.
    private var streaming: (consumer: any HTTPBodyConsumer, head: HTTPRequestHead)?
    /// The head of the request whose body is under way.
    private var pendingHead: HTTPRequestHead?
    private var parser: HTTPRequestParser
    private var receiveBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    private let clock = ContinuousClock()
    /// When bytes last arrived.
    private var lastReceived = ContinuousClock.now
    /// The socket was handed to a response's new owner (``HTTPResponse/Body/handOff(_:)``),
    /// which closes it.
    private var handedOff = false

    /// What the connection waits for, and until when.
    private enum Wait {
        /// Nothing of a request has arrived; on timeout, close silently.
        case idle(until: ContinuousClock.Instant)
        /// A request is under way; on timeout, answer `408`.
        case request(until: ContinuousClock.Instant)
    }

    init(
        socket: Socket, peer: SocketAddress, id: HTTPConnectionRegistry.ID, configuration: HTTPServerConfiguration,
        handler: any HTTPHandler, handlerThreads: HTTPHandlerThreads, log: @escaping @Sendable (String) -> Void,
        registry: HTTPConnectionRegistry, stopSignal: WakeupPipe, budget: HTTPBodyBudget, throttle: HTTPLogThrottle
    ) {
        self.budget = budget
        self.throttle = throttle
        self.group = HTTPClientGroup(host: peer.host)
        self.socket = socket
        self.peer = peer
        self.id = id
        self.configuration = configuration
        self.handler = handler
        self.handlerThreads = handlerThreads
        self.log = log
        self.registry = registry
        self.stopSignal = stopSignal
        self.parser = HTTPRequestParser(limits: configuration.parserLimits)
    }

    /// Serves requests until the connection ends, then closes the socket.
    func run() {
        defer {
            releaseBody()
            streaming = nil
            registry.remove(id)
            if !handedOff { socket.close() }
            trimIfPending()
        }
        try? socket.setSendTimeout(configuration.writeTimeout)
        var wait = Wait.idle(until: clock.now.advanced(by: configuration.firstRequestTimeout))
        // A connection that has sent nothing yet, or waits between requests, may be closed to
        // make room for a new one when every slot is taken.
        registry.setIdle(id, true)
        var watchingStop = true
        while true {
            let action: HTTPRequestParser.Action
            do throws(HTTPRequestError) {
                action = try parser.next()
            } catch {
                reject(error)
                return
            }
            switch action {
            case .sendContinue:
                guard (try? socket.sendAll(HTTPResponseEncoder.continueHead)) != nil else { return }
                continue
            case .head(let head):
                // Busy from its head on: a head that came in one read never left the parser
                // mid-head for the check below to see, and the slot is not a newcomer's to take.
                registry.setIdle(id, false)
                // Decided from the head alone: a request that may not be made never has its
                // body read, and a body the budget cannot hold is not read either.
                let limit: Int
                switch handler.admit(HTTPRequest(head: head, body: [], remoteAddress: peer)) {
                case .reject(let response):
                    refuse(head, response)
                    return
                case .accept(let maximumBodyBytes):
                    limit = maximumBodyBytes
                    streaming = nil
                case .stream(let maximumBodyBytes, let makeConsumer):
                    limit = maximumBodyBytes
                    streaming = (makeConsumer(), head)
                }
                let bodyLimit = min(limit, configuration.maximumBodyBytes)
                guard let clients = presentToken(of: head) else { return }
                pendingHead = head
                // Nothing is reserved for what the head announces: the body's bytes are, as they
                // arrive (see `hold`), and they must keep coming at the minimum rate.
                reservedClients = clients
                bodyStarted = clock.now
                bodyReceived = 0
                lastReceived = clock.now
                wait = .request(until: clock.now.advanced(by: .seconds(24 * 3600)))
                do throws(HTTPRequestError) {
                    if try parser.admit(maximumBodyBytes: bodyLimit) == .sendContinue {
                        guard (try? socket.sendAll(HTTPResponseEncoder.continueHead)) != nil else { return }
                    }
                } catch {
                    reject(error)
                    return
                }
                continue
            case .request(let head, let body):
                registry.setIdle(id, false)  // (a request without a body comes whole, with no `.head` first)
                if bodyStarted == nil {
                    guard presentToken(of: head) != nil else { return }
                }
                bodyStarted = nil
                pendingHead = nil
                registry.setAnswering(id, true)
                var decoded: (any Sendable)?
                if let consumer = streaming?.consumer {
                    streaming = nil
                    guard feed(consumer, body, head) else { return }
                    do throws(HTTPBodyRejection) {
                        decoded = try consumer.finish()
                    } catch {
                        refuse(head, error.response, draining: true)
                        return
                    }
                }
                let answered = respond(to: head, body: decoded == nil ? body : [], decoded: decoded)
                decoded = nil  // (freed before memory is given back)
                registry.setAnswering(id, false)
                releaseBody()
                trimIfPending()
                guard answered else { return }
                if registry.isStopping && parser.isIdle { return }
                wait = parser.isIdle
                    ? .idle(until: clock.now.advanced(by: configuration.idleTimeout))
                    : .request(until: clock.now.advanced(by: configuration.headTimeout))
                registry.setIdle(id, parser.isIdle)
                continue
            case .needMoreData:
                if let (consumer, head) = streaming, case let received = parser.takeReceivedBody(), !received.isEmpty {
                    guard feed(consumer, received, head) else { return }
                } else if bodyStarted != nil, let head = pendingHead {
                    guard hold(parser.bodyBytesHeld, head) else { return }
                }
            }
            if case .idle = wait, !parser.isIdle {
                // A request has begun: its head must arrive within a few seconds.
                wait = .request(until: clock.now.advanced(by: configuration.headTimeout))
                registry.setIdle(id, false)
            }
            var deadline: ContinuousClock.Instant
            switch wait {
            case .idle(let until), .request(let until): deadline = until
            }
            if let bodyStarted {
                // A body under way must keep up with the minimum rate after its grace, and may
                // not stall, whatever its overall deadline.
                let rate = Double(max(1, configuration.minimumBodyBytesPerSecond))
                let earned = Duration.milliseconds(Int64(min(Double(bodyReceived) / rate * 1000, 1e12)))
                deadline = min(deadline, bodyStarted.advanced(by: configuration.bodyRateGrace + earned))
                deadline = min(deadline, lastReceived.advanced(by: configuration.bodyStallTimeout))
            }
            let descriptors = watchingStop ? [socket.rawValue, stopSignal.readDescriptor] : [socket.rawValue]
            guard let ready = try? Poll.waitForReadable(descriptors, timeout: clock.now.duration(to: deadline)) else {
                return
            }
            if watchingStop && ready[1] {
                // The server is stopping: an idle connection closes now; one mid-request
                // finishes it and closes after the response.
                if parser.isIdle { return }
                watchingStop = false
            }
            if !ready[0] {
                if ready.count > 1 && ready[1] { continue }
                if case .request = wait { reject(.timeout) }
                return
            }
            let count = receiveBuffer.withUnsafeMutableBytes { buffer in
                (try? socket.receive(into: buffer)) ?? 0
            }
            // End of stream or an error: a request cut short is dropped, its handler never called.
            guard count > 0 else { return }
            lastReceived = clock.now
            registry.heard(id, at: lastReceived)
            if bodyStarted != nil { bodyReceived += count }
            receiveBuffer.withUnsafeBytes { buffer in
                parser.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
        }
    }

    /// Hands body bytes to the request's consumer, and holds the memory it keeps against the
    /// budget. On a refusal, or when the budget cannot hold what it keeps, answers and returns
    /// false: the connection closes.
    private func feed(_ consumer: any HTTPBodyConsumer, _ bytes: [UInt8], _ head: HTTPRequestHead) -> Bool {
        let rejection = bytes.withUnsafeBytes { buffer -> HTTPBodyRejection? in
            do throws(HTTPBodyRejection) { try consumer.consume(buffer) } catch { return error }
            return nil
        }
        if let rejection {
            refuse(head, rejection.response, draining: true)
            return false
        }
        return hold(consumer.retainedBytes + parser.bodyBytesHeld, head)
    }

    /// Holds `bytes` of the budget for the request under way (more than it holds already), in
    /// all and of its clients' shares. When they do not fit, answers and returns false: `413`
    /// when they could never fit, `503` when others hold the rest.
    private func hold(_ bytes: Int, _ head: HTTPRequestHead) -> Bool {
        guard bytes > reservedBody else { return true }
        let most = min(budget.capacity, budget.perClient)
        if bytes > most {
            // Not "busy": this body would not fit even if it were the only one.
            refuse(head, .error(.payloadTooLarge, "the request holds more than the body budget this server allows one client, "
                + "\(most) bytes once read; send it in smaller parts"), draining: true)
            return false
        }
        guard budget.reserve(bytes - reservedBody, for: reservedClients) else {
            refuse(head, .error(.serviceUnavailable, "the server is busy receiving other requests; try again shortly"),
                   draining: true)
            return false
        }
        reservedBody = bytes
        peakReserved = max(peakReserved, bytes)
        return true
    }

    /// Gives back what the request under way held of the budget, and memory to the system
    /// after a large request.
    private func releaseBody() {
        budget.release(reservedBody, for: reservedClients)
        reservedBody = 0
        bodyStarted = nil
        if peakReserved >= Self.trimThreshold { trimPending = true }
        peakReserved = 0
    }

    /// Gives freed memory back to the system after a large request, once what it held is
    /// dropped (the caller holds none of it any more).
    private func trimIfPending() {
        guard trimPending else { return }
        trimPending = false
        ProcessMemory.returnFreeMemory()
    }

    /// After a request that held this much, freed memory is given back to the system.
    static let trimThreshold = 8 << 20

    /// Counts the connection against the token its request presents, if any: the budget keys
    /// of the request (its address group, its token), or `nil` after answering `503` when the
    /// token already holds its share of the slots.
    private func presentToken(of head: HTTPRequestHead) -> [String]? {
        var clients = [group.description]
        guard let authorization = head.headers.values(for: "Authorization").first else { return clients }
        // A key, not the token: the registry and the budget never hold a secret.
        var hasher = Hasher()
        hasher.combine(authorization)
        let key = "token:\(hasher.finalize())"
        guard registry.present(id, token: key) else {
            refuse(head, .error(.serviceUnavailable, "too many connections with this token; try again later"))
            return nil
        }
        clients.append(key)
        return clients
    }

    // MARK: - Responding

    /// Runs the handler and writes its response.
    /// - Returns: whether the connection stays open.
    private func respond(to head: HTTPRequestHead, body: [UInt8], decoded: (any Sendable)? = nil) -> Bool {
        let started = clock.now
        let request = HTTPRequest(head: head, body: body, remoteAddress: peer, decodedBody: decoded)
        let exchange = HTTPExchange()
        let sendsBody = head.method != .head
        exchange.start(handler, request, streamBody: sendsBody, threads: handlerThreads)
        let response = exchange.waitForResponse()
        var closing = !head.keepAlive || registry.isStopping
            || response.headers.values(for: "Connection").contains { $0.lowercased() == "close" }
        let bodyAllowed = !response.status.forbidsBody

        var sent = 0
        var completed = true
        switch response.body {
        case .bytes(let bytes):
            let framing: HTTPResponseEncoder.Framing = bodyAllowed ? .length(bytes.count) : .none
            var message = HTTPResponseEncoder.head(
                status: response.status, headers: response.headers, framing: framing, closing: closing,
                version: head.version)
            let payload = sendsBody && bodyAllowed ? bytes : []
            if payload.count <= 64 * 1024 {
                message += payload
                completed = (try? socket.sendAll(message)) != nil
            } else {
                completed = (try? socket.sendAll(message)) != nil && (try? socket.sendAll(payload)) != nil
            }
            sent = completed ? payload.count : 0
        case .stream:
            let framing: HTTPResponseEncoder.Framing
            if !bodyAllowed {
                framing = .none
            } else if head.version == .http10 {
                framing = .untilClose
                closing = true
            } else {
                framing = .chunked
            }
            let message = HTTPResponseEncoder.head(
                status: response.status, headers: response.headers, framing: framing, closing: closing,
                version: head.version)
            completed = (try? socket.sendAll(message)) != nil
            if completed && sendsBody {
                (completed, sent) = stream(from: exchange, framing: framing)
            } else if !completed {
                exchange.close()
            }
        case .handOff(let takeOver):
            let message = HTTPResponseEncoder.head(
                status: response.status, headers: response.headers, framing: bodyAllowed ? .untilClose : .none, closing: true,
                version: head.version)
            completed = (try? socket.sendAll(message)) != nil
            if completed && sendsBody && bodyAllowed {
                logRequest(head.method, target: head.target, status: response.status, bytes: 0, since: started,
                           note: "handed off", headers: head.headers)
                handedOff = true
                takeOver(socket)
                return false
            }
            closing = true
        }
        logRequest(head.method, target: head.target, status: response.status, bytes: sent, since: started,
                   note: completed ? nil : "incomplete", headers: head.headers)
        if !completed { return false }
        if closing { closeGracefully() }
        return !closing
    }

    /// Sends the chunks a streamed body produces until it ends.
    /// - Returns: whether the body was sent completely, and how many body bytes were sent.
    private func stream(from exchange: HTTPExchange, framing: HTTPResponseEncoder.Framing) -> (Bool, Int) {
        var sent = 0
        while true {
            switch exchange.waitForBodyEvent() {
            case .chunk(let bytes):
                let ok: Bool
                if framing == .chunked {
                    ok = (try? socket.sendAll(HTTPResponseEncoder.chunkHead(bytes.count) + bytes
                        + HTTPResponseEncoder.chunkEnd)) != nil
                } else {
                    ok = (try? socket.sendAll(bytes)) != nil
                }
                exchange.chunkSent(ok)
                guard ok else { return (false, sent) }
                sent += bytes.count
            case .end:
                if framing == .chunked {
                    guard (try? socket.sendAll(HTTPResponseEncoder.lastChunk)) != nil else { return (false, sent) }
                }
                return (true, sent)
            case .failed(let error):
                log("stream failed after \(sent) bytes: \(type(of: error))")
                return (false, sent)
            }
        }
    }

    /// Answers a request refused from its head, without reading its body (or the rest of it),
    /// then closes; `draining` discards what the client still sends for a moment first, so it
    /// reads the answer rather than a reset.
    private func refuse(_ head: HTTPRequestHead, _ response: HTTPResponse, draining: Bool = false) {
        let started = clock.now
        // What the request held of the budget is free before the client reads the answer.
        streaming = nil
        releaseBody()
        if case .bytes(let body) = response.body {
            let message = HTTPResponseEncoder.head(
                status: response.status, headers: response.headers, framing: .length(body.count), closing: true,
                version: head.version) + body
            _ = try? socket.sendAll(message)
        }
        logRequest(head.method, target: head.target, status: response.status, bytes: 0, since: started,
                   note: draining ? "body refused" : "body not read", headers: head.headers,
                   throttled: response.status == .serviceUnavailable)
        if draining { closeGracefully() } else { socket.shutdown(.write) }
    }

    /// Answers a malformed or timed-out request with its status and a JSON error, then closes.
    private func reject(_ error: HTTPRequestError) {
        let started = clock.now
        let response = HTTPResponse.error(error.status, error.message)
        if case .bytes(let body) = response.body {
            let message = HTTPResponseEncoder.head(
                status: response.status, headers: response.headers, framing: .length(body.count), closing: true,
                version: .http11) + body
            _ = try? socket.sendAll(message)
        }
        logRequest(nil, target: nil, status: error.status, bytes: 0, since: started, note: error.message, throttled: true)
        closeGracefully()
    }

    /// Ends the write side and discards what the client still sends for a moment, so the
    /// kernel does not reset the connection before the client has read the response (which
    /// a close with unread input does). Bounded in time and bytes.
    private func closeGracefully() {
        socket.shutdown(.write)
        let deadline = clock.now.advanced(by: .milliseconds(500))
        var discarded = 0
        while discarded < 1 << 20 {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero,
                  let ready = try? Poll.waitForReadable([socket.rawValue], timeout: remaining), ready[0]
            else { return }
            let count = receiveBuffer.withUnsafeMutableBytes { (try? socket.receive(into: $0)) ?? 0 }
            if count <= 0 { return }
            discarded += count
        }
    }

    private func logRequest(
        _ method: HTTPMethod?, target: String?, status: HTTPStatus, bytes: Int, since started: ContinuousClock.Instant,
        note: String?, headers: HTTPHeaders? = nil, throttled: Bool = false
    ) {
        let elapsed = started.duration(to: clock.now)
        let microseconds = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        let milliseconds = "\(microseconds / 1000).\(microseconds % 1000 / 100)"
        let path = target.map { String($0.prefix { $0 != "?" }) } ?? "-"
        var client = "\(peer)"
        if configuration.trustedProxies.contains(peer.host), let forwarded = headers?.values(for: "X-Forwarded-For").last,
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            // Only a proxy the server trusts may say who the client is; the last entry is the
            // address the proxy itself saw.
            client = "\(last.prefix(64)) via \(peer)"
        }
        var line = "\(method?.rawValue ?? "-") \(path) \(status.code) \(bytes)B \(milliseconds)ms \(client)"
        if let note { line += " (\(note))" }
        if throttled {
            // Refusals and timeouts: one line a second per client, with a count, however fast
            // a client makes them.
            guard let held = throttle.admit(group.description, now: clock.now) else { return }
            line = HTTPLogThrottle.line(line, held: held)
        }
        log(line)
    }
}
