#if os(Linux)
import Ferry
import Foundation
import Glibc

/// A streamed `https://` response (a served store's change feed, a backend's realtime events)
/// read through libcurl's blocking easy interface on a thread of its own, on Linux.
///
/// `URLSession` on Linux drives libcurl from dispatch sources, and while a response is quiet it
/// keeps waking on the socket's writability: a quiet feed kept a core busy. Here one thread
/// sleeps in libcurl's own `poll` until bytes come (libcurl wakes it about once a second to ask
/// whether to go on), with the TLS, certificate checks and de-chunking of the libcurl that
/// `URLSession` uses, so an `https://` feed costs what an `http://` one does
/// (``SocketHTTPStream``).
///
/// ```swift
/// guard let curl = LibCurl.load() else { … }  // URLSession then
/// let stream = try await CurlHTTPStream.open(request, curl: curl)
/// for try await bytes in stream.bytes { … }   // until the server ends it, or stream.cancel()
/// ```
final class CurlHTTPStream: @unchecked Sendable {
    private let curl: LibCurl
    private let request: HTTPClientRequest
    private let certificateAuthorityFile: String?
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let lock = NSLock()
    /// The sockets libcurl opened through ``openSocket`` and has not closed: ``cancel()``
    /// shuts them down, which wakes the thread at once. Guarded by `lock`.
    private var sockets: Set<Int32> = []
    private var cancelled = false
    /// Touched by the reading thread only: the caller waiting for the head, until it is told.
    private var waitingForHead: StreamReadingThread.Head?
    private var handle: LibCurl.Handle?

    private init(
        curl: LibCurl, request: HTTPClientRequest, certificateAuthorityFile: String?,
        continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    ) {
        self.curl = curl
        self.request = request
        self.certificateAuthorityFile = certificateAuthorityFile
        self.continuation = continuation
    }

    /// Connects, sends `request` and returns once the response's head has arrived.
    /// - Parameters:
    ///   - request: an `http://` or `https://` request; its ``HTTPClientRequest/timeout`` is
    ///     the longest the response may stay silent (10 minutes when `nil`).
    ///   - curl: the process's libcurl.
    ///   - certificateAuthorityFile: a PEM file of the certificates to trust instead of the
    ///     system's (tests use it for a certificate of their own).
    /// - Throws: ``HTTPClientFailure`` when no head came (refused, reset, silent, TLS refused).
    static func open(
        _ request: HTTPClientRequest, curl: LibCurl, certificateAuthorityFile: String? = nil
    ) async throws(HTTPClientFailure) -> HTTPClientStream {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw HTTPClientFailure("\(request.url.absoluteString) is not an http(s):// URL", isRetryable: false)
        }
        let (bytes, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let stream = CurlHTTPStream(
            curl: curl, request: request, certificateAuthorityFile: certificateAuthorityFile, continuation: continuation)
        continuation.onTermination = { _ in stream.cancel() }
        let status = try await StreamReadingThread.start(named: "ferry https", cancel: { stream.cancel() }) { head in
            stream.run(reportingHead: head)
        }
        return HTTPClientStream(status: status, bytes: bytes, cancel: { stream.cancel() })
    }

    /// Ends the exchange: its sockets are shut down, the thread wakes, the bytes end.
    func cancel() {
        lock.withLock {
            cancelled = true
            for socket in sockets { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    /// The thread's work: one `curl_easy_perform`, which calls back with the head and the
    /// body's pieces, then the end or the failure handed on.
    private func run(reportingHead waiting: StreamReadingThread.Head) {
        waitingForHead = waiting
        let failure = perform()
        if let failure {
            if let waiting = waitingForHead {
                waitingForHead = nil
                waiting.resume(returning: .failure(failure))
            }
            // After cancel(), the end of the bytes is the end the reader asked for.
            if isCancelled { continuation.finish() } else { continuation.finish(throwing: failure) }
        } else {
            if let waiting = waitingForHead {
                waitingForHead = nil
                let failure =
                    isCancelled
                    ? HTTPClientFailure("cancelled", isRetryable: false)
                    : HTTPClientFailure("\(authority) answered without a response head", isRetryable: true)
                waiting.resume(returning: .failure(failure))
            }
            continuation.finish()
        }
    }

    /// The exchange; `nil` when it ended as HTTP says it should.
    private func perform() -> HTTPClientFailure? {
        guard let handle = curl.easyInit() else { return HTTPClientFailure("libcurl could not start a transfer", isRetryable: true) }
        self.handle = handle
        defer {
            curl.easyCleanup(handle)
            self.handle = nil
        }
        var headerList: OpaquePointer?
        defer { curl.listFree(headerList) }
        var fields = request.headers.map { "\($0.name): \($0.value)" }
        // libcurl would otherwise wait for a `100 Continue` before sending a body.
        if request.body != nil { fields.append("Expect:") }
        for field in fields {
            guard let appended = curl.listAppend(headerList, field) else {
                return HTTPClientFailure("libcurl could not take the request's headers", isRetryable: false)
            }
            headerList = appended
        }
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: LibCurl.errorBufferSize)
        errorText.initialize(repeating: 0, count: LibCurl.errorBufferSize)
        defer { errorText.deallocate() }
        let body = request.body ?? []
        let silence = max(1, Int((request.timeout ?? 600).rounded(.up)))
        let me = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        let code: Int32 = body.withUnsafeBytes { bodyBytes in
            var failed = false
            func set(_ option: Int32, _ value: Int) { failed = failed || curl.setLong(handle, option, value) != LibCurl.Code.ok }
            func set(_ option: Int32, _ value: UnsafeRawPointer?) {
                failed = failed || curl.setPointer(handle, option, value) != LibCurl.Code.ok
            }
            func set(_ option: Int32, _ text: String) {
                failed = failed || text.withCString { curl.setPointer(handle, option, $0) } != LibCurl.Code.ok
            }
            set(LibCurl.url, request.url.absoluteString)
            set(LibCurl.customRequest, request.method.rawValue)
            if request.body != nil {
                set(LibCurl.postFieldSize, bodyBytes.count)
                // A body of no bytes still needs a pointer, or libcurl reads one with its read callback.
                set(LibCurl.postFields, bodyBytes.baseAddress ?? UnsafeRawPointer(errorText))
            }
            set(LibCurl.httpHeader, headerList.map { UnsafeRawPointer($0) })
            set(LibCurl.httpVersion, LibCurl.http11)
            set(LibCurl.noSignal, 1)
            set(LibCurl.tcpKeepAlive, 1)
            set(LibCurl.connectTimeout, min(silence, 30))
            // Less than a byte a second for the request's timeout: a dead connection.
            set(LibCurl.lowSpeedLimit, 1)
            set(LibCurl.lowSpeedTime, silence)
            set(LibCurl.errorBuffer, UnsafeRawPointer(errorText))
            set(LibCurl.writeFunction, unsafeBitCast(Self.receiveBody, to: UnsafeRawPointer.self))
            set(LibCurl.writeData, me)
            set(LibCurl.headerFunction, unsafeBitCast(Self.receiveHeader, to: UnsafeRawPointer.self))
            set(LibCurl.headerData, me)
            set(LibCurl.noProgress, 0)
            set(LibCurl.transferInfoFunction, unsafeBitCast(Self.checkIn, to: UnsafeRawPointer.self))
            set(LibCurl.transferInfoData, me)
            set(LibCurl.openSocketFunction, unsafeBitCast(Self.openSocket, to: UnsafeRawPointer.self))
            set(LibCurl.openSocketData, me)
            set(LibCurl.closeSocketFunction, unsafeBitCast(Self.closeSocket, to: UnsafeRawPointer.self))
            set(LibCurl.closeSocketData, me)
            if let certificateAuthorityFile { set(LibCurl.caInfo, certificateAuthorityFile) }
            guard !failed else { return -1 }
            // Only the web's two schemes, whatever libcurl was built with (7.85 and later).
            _ = "http,https".withCString { curl.setPointer(handle, LibCurl.protocolsString, $0) }
            return curl.easyPerform(handle)
        }
        if code == -1 { return HTTPClientFailure("libcurl refused the request's options", isRetryable: false) }
        if code == LibCurl.Code.ok || isCancelled { return nil }
        return failure(code, detail: String(cString: errorText))
    }

    /// What a libcurl failure means to a caller, worded as the other clients word it.
    private func failure(_ code: Int32, detail: String) -> HTTPClientFailure {
        let message = detail.isEmpty ? curl.message(for: code) : detail
        if code == LibCurl.Code.timedOut {
            if waitingForHead == nil { return HTTPClientFailure("\(authority) sent nothing for \(Int(request.timeout ?? 600)) s", isRetryable: true) }
            return HTTPClientFailure("\(authority) accepted the connection but did not answer in time (\(message))", isRetryable: false)
        }
        if message.localizedCaseInsensitiveContains("wrong version number") {
            return HTTPClientFailure("the TLS handshake failed (\(message)): is it a plain http:// server?", isRetryable: false)
        }
        if LibCurl.Code.isTLS(code) { return HTTPClientFailure("\(authority): the TLS handshake failed: \(message)", isRetryable: false) }
        let permanent = [LibCurl.Code.unsupportedProtocol, LibCurl.Code.malformedURL].contains(code)
        return HTTPClientFailure("\(authority): \(message)", isRetryable: !permanent)
    }

    /// `host:port`, for messages.
    private var authority: String {
        let host = request.url.host ?? "?"
        return request.url.port.map { "\(host):\($0)" } ?? host
    }

    // MARK: - libcurl's callbacks (on the reading thread)

    private static func stream(_ pointer: UnsafeMutableRawPointer?) -> CurlHTTPStream? {
        pointer.map { Unmanaged<CurlHTTPStream>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The status of the response whose head just ended: the caller is told once, at the
    /// first final (non-1xx) status.
    private func headEnded() {
        guard let waiting = waitingForHead, let handle else { return }
        var status = 0
        guard curl.getLong(handle, LibCurl.responseCode, &status) == LibCurl.Code.ok, status >= 200 else { return }
        waitingForHead = nil
        waiting.resume(returning: .success(HTTPStatus(code: status)))
    }

    /// One line of a response head, its line end included; a bare line end closes a head.
    private static let receiveHeader: LibCurl.DataCallback = { bytes, size, count, context in
        guard let stream = stream(context) else { return 0 }
        let length = size * count
        if length <= 2, let bytes, bytes[0] == 0x0D || bytes[0] == 0x0A { stream.headEnded() }
        return length
    }

    /// A piece of the body, de-chunked; answering less than its length ends the transfer.
    private static let receiveBody: LibCurl.DataCallback = { bytes, size, count, context in
        guard let stream = stream(context), !stream.isCancelled else { return 0 }
        let length = size * count
        stream.headEnded()
        if let bytes, length > 0 {
            stream.continuation.yield([UInt8](UnsafeRawBufferPointer(start: bytes, count: length)))
        }
        return length
    }

    /// Called about once a second while the transfer waits: non-zero ends it.
    private static let checkIn: LibCurl.TransferInfoCallback = { context, _, _, _, _ in
        guard let stream = stream(context) else { return 1 }
        return stream.isCancelled ? 1 : 0
    }

    /// Opens the connection's socket (`struct curl_sockaddr` begins with family, type and
    /// protocol), noted so that ``cancel()`` can shut it down; none once cancelled.
    private static let openSocket: LibCurl.OpenSocketCallback = { context, _, address in
        guard let stream = stream(context), let address else { return -1 }
        let family = address.load(as: Int32.self)
        let type = address.load(fromByteOffset: 4, as: Int32.self)
        let proto = address.load(fromByteOffset: 8, as: Int32.self)
        let socket = Glibc.socket(family, type | Int32(SOCK_CLOEXEC.rawValue), proto)
        guard socket >= 0 else { return -1 }
        let kept = stream.lock.withLock {
            guard !stream.cancelled else { return false }
            stream.sockets.insert(socket)
            return true
        }
        if !kept { _ = Glibc.close(socket) }
        return kept ? socket : -1
    }

    /// Closes a socket libcurl is done with, once ``cancel()`` can no longer reach it.
    private static let closeSocket: LibCurl.CloseSocketCallback = { context, socket in
        if let stream = stream(context) { _ = stream.lock.withLock { stream.sockets.remove(socket) } }
        return Glibc.close(socket)
    }
}
#endif
