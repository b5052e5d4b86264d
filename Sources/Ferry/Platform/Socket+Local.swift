#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Unix-domain sockets: a file in a folder that processes of this machine connect to.
///
/// ```swift
/// let listener = try Socket.listen(localPath: "/data/notes/.ferry/watch/answers")
/// let client = try Socket.connect(localPath: "/data/notes/.ferry/watch/answers")
/// ```
extension Socket {
    /// Creates a listening, non-blocking, close-on-exec socket at `path`, which must not exist.
    /// - Throws: ``SystemError``: `ENAMETOOLONG` for a path longer than the kernel takes (about
    ///   100 bytes), and what `socket`, `bind` or `listen` report.
    package static func listen(localPath path: String, backlog: Int32 = 128) throws(SystemError) -> Socket {
        let socket = try open(family: AF_UNIX, endpoint: path)
        do throws(SystemError) {
            let bound = try withAddress(of: path) { address, length in bind(socket.rawValue, address, length) }
            guard bound == 0 else { throw .current("bind", path: path) }
            guard Glibc_listenLocal(socket.rawValue, backlog) == 0 else { throw .current("listen", path: path) }
            try socket.setNonBlocking(true, path)
            return socket
        } catch {
            socket.close()
            throw error
        }
    }

    /// Opens a non-blocking connection to the socket at `path`: made when this returns, and held
    /// in the listener's queue until it accepts it; never waits for room in that queue.
    /// - Throws: ``SystemError``: `ENOENT` or `ECONNREFUSED` when nothing listens there,
    ///   `EAGAIN` when its queue is full.
    package static func connect(localPath path: String) throws(SystemError) -> Socket {
        let socket = try open(family: AF_UNIX, endpoint: path)
        do throws(SystemError) {
            try socket.setNonBlocking(true, path)
            let connected = try withAddress(of: path) { address, length in
                retryingOnInterrupt { Glibc_connectLocal(socket.rawValue, address, length) }
            }
            guard connected == 0 else { throw .current("connect", path: path) }
            return socket
        } catch {
            socket.close()
            throw error
        }
    }

    /// Calls `body` with `path` as a `sockaddr_un`.
    private static func withAddress(
        of path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) throws(SystemError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw SystemError("bind", path: path, code: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2) + socklen_t(bytes.count + 1)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

@inline(__always) private func Glibc_listenLocal(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }
@inline(__always) private func Glibc_connectLocal(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}
