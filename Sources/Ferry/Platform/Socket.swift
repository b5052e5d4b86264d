#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket: a thin, typed wrapper over a POSIX descriptor. Every call retries `EINTR`
/// and throws ``SystemError``; writing never raises `SIGPIPE` (`MSG_NOSIGNAL` on Linux,
/// `SO_NOSIGPIPE` on Apple platforms).
///
/// ```swift
/// let listener = try Socket.listen(host: "127.0.0.1", port: 0)
/// let port = try listener.localAddress().port
/// let client = try Socket.connect(host: "127.0.0.1", port: port)
/// try client.sendAll(Array("ping".utf8))
/// ```
///
/// A `Socket` is a value: whoever created it owns the descriptor and must ``close()`` it once.
/// Other threads may call ``shutdown(_:)`` to wake a reader blocked on it.
package struct Socket: Sendable, Hashable {
    /// The raw descriptor.
    package let rawValue: Int32

    /// Which directions ``shutdown(_:)`` ends.
    package enum ShutdownMode: Sendable {
        /// No more reads; a blocked reader wakes with end of stream.
        case read
        /// No more writes; the peer sees end of stream.
        case write
        /// Both.
        case readWrite
    }

    /// Wraps a descriptor this process owns.
    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Creates a listening, non-blocking, close-on-exec socket bound to `host` and `port`
    /// (`0` picks a free port) with `SO_REUSEADDR`.
    /// - Parameters:
    ///   - host: a numeric address or a name such as `localhost`; the first address that binds wins.
    ///   - port: the TCP port, `0` for an ephemeral one (read it back with ``localAddress()``).
    ///   - backlog: the kernel's queue of connections not yet accepted.
    /// - Throws: ``SystemError`` from `getaddrinfo`, `socket`, `bind` or `listen`.
    package static func listen(host: String, port: Int, backlog: Int32 = 1024) throws(SystemError) -> Socket {
        let endpoint = "\(host):\(port)"
        return try withAddresses(host: host, port: port, passive: true, endpoint: endpoint) {
            (info) throws(SystemError) -> Socket in
            let socket = try open(family: info.ai_family, endpoint: endpoint)
            do throws(SystemError) {
                var one: Int32 = 1
                try socket.setOption(SOL_SOCKET, SO_REUSEADDR, &one, "setsockopt(SO_REUSEADDR)", endpoint)
                guard bind(socket.rawValue, info.ai_addr, info.ai_addrlen) == 0 else {
                    throw .current("bind", path: endpoint)
                }
                guard Glibc_listen(socket.rawValue, backlog) == 0 else { throw .current("listen", path: endpoint) }
                try socket.setNonBlocking(true, endpoint)
                return socket
            } catch {
                socket.close()
                throw error
            }
        }
    }

    /// Opens a blocking connection to `host:port` with `TCP_NODELAY` set.
    /// - Parameter receiveBufferBytes: a receive buffer to set before connecting (a small one
    ///   makes a client that stops reading fill up soon, as a slow one on a long link does).
    /// - Throws: ``SystemError`` from `getaddrinfo`, `socket` or `connect`.
    package static func connect(host: String, port: Int, receiveBufferBytes: Int? = nil) throws(SystemError) -> Socket {
        let endpoint = "\(host):\(port)"
        return try withAddresses(host: host, port: port, passive: false, endpoint: endpoint) {
            (info) throws(SystemError) -> Socket in
            let socket = try open(family: info.ai_family, endpoint: endpoint)
            if let receiveBufferBytes { try? socket.setReceiveBufferSize(receiveBufferBytes) }
            guard retryingOnInterrupt({ Glibc_connect(socket.rawValue, info.ai_addr, info.ai_addrlen) }) == 0 else {
                let error = SystemError.current("connect", path: endpoint)
                socket.close()
                throw error
            }
            try? socket.setNoDelay()
            return socket
        }
    }

    /// Accepts one pending connection from a listening socket. The new socket is blocking,
    /// close-on-exec and has `TCP_NODELAY` set.
    /// - Returns: the connection and its peer's address, or `nil` when none is pending.
    /// - Throws: ``SystemError`` from `accept`, such as `EMFILE` when out of descriptors.
    package func accept() throws(SystemError) -> (Socket, SocketAddress)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                retryingOnInterrupt { Glibc_accept(rawValue, address, &length) }
            }
        }
        if fd < 0 {
            let error = SystemError.current("accept", path: nil)
            if error.isWouldBlock || error.code == ECONNABORTED { return nil }
            throw error
        }
        let socket = Socket(rawValue: fd)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        try? socket.setNonBlocking(false, nil)  // BSD accept inherits O_NONBLOCK from the listener
        Socket.suppressSignalOnWrite(fd)
        try? socket.setNoDelay()
        let peer = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0, length: length) }
        }
        return (socket, peer ?? SocketAddress(host: "unknown", port: 0))
    }

    /// The address the socket is bound to; its `port` is the one the kernel chose for port `0`.
    package func localAddress() throws(SystemError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(rawValue, $0, &length) }
        }
        guard status == 0 else { throw .current("getsockname", path: nil) }
        let address = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0, length: length) }
        }
        guard let address else { throw SystemError("getnameinfo", path: nil, code: EINVAL) }
        return address
    }

    /// Reads what has arrived, blocking until something does.
    /// - Returns: the number of bytes read; `0` means the peer closed its side.
    /// - Throws: ``SystemError`` from `recv`, such as `ECONNRESET`, or `EAGAIN` after a receive timeout.
    package func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let got = retryingOnInterrupt { recv(rawValue, base, buffer.count, 0) }
        guard got >= 0 else { throw .current("recv", path: nil) }
        return got
    }

    /// Reads up to `count` bytes, blocking until something arrives; empty means end of stream.
    package func receive(upTo count: Int) throws(SystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let result: Result<Int, SystemError> = bytes.withUnsafeMutableBytes { buffer in
            do throws(SystemError) { return .success(try receive(into: buffer)) } catch { return .failure(error) }
        }
        let got = try result.get()
        bytes.removeLast(count - got)
        return bytes
    }

    /// Writes every byte, looping over short writes.
    /// - Throws: ``SystemError`` from `send`: `EPIPE` or `ECONNRESET` when the peer is gone,
    ///   `EAGAIN` when a send timeout passed.
    package func sendAll(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let sent = retryingOnInterrupt { Glibc_send(rawValue, base + offset, bytes.count - offset) }
            guard sent > 0 else { throw .current("send", path: nil) }
            offset += sent
        }
    }

    /// Writes every byte of an array.
    package func sendAll(_ bytes: [UInt8]) throws(SystemError) {
        if bytes.isEmpty { return }
        let failure: SystemError? = bytes.withUnsafeBytes { buffer in
            do throws(SystemError) { try sendAll(buffer); return nil } catch { return error }
        }
        if let failure { throw failure }
    }

    /// Writes what the kernel takes now without waiting (`MSG_DONTWAIT`), for an event loop.
    /// - Returns: the number of bytes written; `0` when the socket's buffer is full.
    /// - Throws: ``SystemError`` from `send`: `EPIPE` or `ECONNRESET` when the peer is gone.
    package func sendWithoutWaiting(_ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        let sent = retryingOnInterrupt { Glibc_send(rawValue, base, bytes.count, flags: Int32(MSG_DONTWAIT)) }
        if sent < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            throw .current("send", path: nil)
        }
        return sent
    }

    /// Reads what has arrived without waiting (`MSG_DONTWAIT`).
    /// - Returns: the bytes read, `0` at the end of the stream, `nil` when nothing is waiting.
    /// - Throws: ``SystemError`` from `recv`, such as `ECONNRESET`.
    package func receiveWithoutWaiting(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return nil }
        let got = retryingOnInterrupt { recv(rawValue, base, buffer.count, Int32(MSG_DONTWAIT)) }
        if got < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw .current("recv", path: nil)
        }
        return got
    }

    /// Sets the kernel's send buffer (`SO_SNDBUF`; the kernel may double it and has a floor).
    package func setSendBufferSize(_ bytes: Int) throws(SystemError) {
        var value = Int32(clamping: bytes)
        try setOption(SOL_SOCKET, SO_SNDBUF, &value, "setsockopt(SO_SNDBUF)", nil)
    }

    /// Sets the kernel's receive buffer (`SO_RCVBUF`); set before connecting to bound the window.
    package func setReceiveBufferSize(_ bytes: Int) throws(SystemError) {
        var value = Int32(clamping: bytes)
        try setOption(SOL_SOCKET, SO_RCVBUF, &value, "setsockopt(SO_RCVBUF)", nil)
    }

    /// Sets `TCP_NODELAY`, so small responses leave at once.
    package func setNoDelay() throws(SystemError) {
        var one: Int32 = 1
        try setOption(Int32(IPPROTO_TCP), TCP_NODELAY, &one, "setsockopt(TCP_NODELAY)", nil)
    }

    /// Makes a blocked `send` fail with `EAGAIN` after `timeout` (`SO_SNDTIMEO`).
    package func setSendTimeout(_ timeout: Duration) throws(SystemError) {
        var value = Socket.timeval(timeout)
        try setOption(SOL_SOCKET, SO_SNDTIMEO, &value, "setsockopt(SO_SNDTIMEO)", nil)
    }

    /// Makes a blocked `recv` fail with `EAGAIN` after `timeout` (`SO_RCVTIMEO`).
    package func setReceiveTimeout(_ timeout: Duration) throws(SystemError) {
        var value = Socket.timeval(timeout)
        try setOption(SOL_SOCKET, SO_RCVTIMEO, &value, "setsockopt(SO_RCVTIMEO)", nil)
    }

    /// Ends one or both directions; safe to call from another thread to wake a blocked reader.
    /// Errors (the peer already gone) are ignored.
    package func shutdown(_ mode: ShutdownMode) {
        let how: Int32
        switch mode {
        case .read: how = Int32(SHUT_RD)
        case .write: how = Int32(SHUT_WR)
        case .readWrite: how = Int32(SHUT_RDWR)
        }
        _ = Glibc_shutdown(rawValue, how)
    }

    /// Closes the descriptor. Call it once, from the owner.
    package func close() {
        _ = Glibc_close(rawValue)
    }

    // MARK: - Helpers

    static func open(family: Int32, endpoint: String) throws(SystemError) -> Socket {
        #if canImport(Darwin)
        let fd = socket(family, SOCK_STREAM, 0)
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        #else
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard fd >= 0 else { throw .current("socket", path: endpoint) }
        suppressSignalOnWrite(fd)
        return Socket(rawValue: fd)
    }

    private static func withAddresses(
        host: String, port: Int, passive: Bool, endpoint: String,
        _ body: (addrinfo) throws(SystemError) -> Socket
    ) throws(SystemError) -> Socket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw SystemError("getaddrinfo", path: endpoint, code: EADDRNOTAVAIL)
        }
        defer { freeaddrinfo(first) }
        var lastError = SystemError("getaddrinfo", path: endpoint, code: EADDRNOTAVAIL)
        var current: UnsafeMutablePointer<addrinfo>? = first
        while let info = current {
            current = info.pointee.ai_next
            do throws(SystemError) {
                return try body(info.pointee)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private func setOption<T: BitwiseCopyable>(
        _ level: Int32, _ name: Int32, _ value: inout T, _ operation: String, _ endpoint: String?
    ) throws(SystemError) {
        let status = withUnsafeBytes(of: &value) { bytes in
            setsockopt(rawValue, level, name, bytes.baseAddress, socklen_t(bytes.count))
        }
        guard status == 0 else { throw .current(operation, path: endpoint) }
    }

    func setNonBlocking(_ nonBlocking: Bool, _ endpoint: String?) throws(SystemError) {
        let flags = fcntl(rawValue, F_GETFL)
        guard flags >= 0 else { throw .current("fcntl", path: endpoint) }
        let wanted = nonBlocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        guard fcntl(rawValue, F_SETFL, wanted) == 0 else { throw .current("fcntl", path: endpoint) }
    }

    static func suppressSignalOnWrite(_ fd: Int32) {
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    private static func timeval(_ duration: Duration) -> Glibc_timeval {
        let (seconds, attoseconds) = duration.components
        var value = Glibc_timeval()
        value.tv_sec = .init(max(seconds, 0))
        value.tv_usec = .init(max(attoseconds / 1_000_000_000_000, 0))
        if seconds == 0 && value.tv_usec == 0 { value.tv_usec = 1 }  // zero would mean "never"
        return value
    }
}

// Aliases that keep the C functions apart from the methods of the same names.
private typealias Glibc_timeval = timeval
@inline(__always) private func Glibc_listen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }
@inline(__always) private func Glibc_close(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) private func Glibc_shutdown(_ fd: Int32, _ how: Int32) -> Int32 { shutdown(fd, how) }
@inline(__always) private func Glibc_connect(
    _ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t
) -> Int32 {
    connect(fd, address, length)
}
@inline(__always) private func Glibc_accept(
    _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>
) -> Int32 {
    accept(fd, address, length)
}
@inline(__always) private func Glibc_send(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, flags: Int32 = 0) -> Int {
    #if canImport(Darwin)
    send(fd, buffer, count, flags)
    #else
    send(fd, buffer, count, Int32(MSG_NOSIGNAL) | flags)
    #endif
}
