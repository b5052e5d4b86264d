#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pipe used as a one-way, permanent alarm: once ``signal()`` is called, its read end stays
/// readable for ever, waking every thread that includes it in ``Poll/waitForReadable(_:timeout:)``.
///
/// ```swift
/// let stopping = try WakeupPipe()
/// // on each worker: try Poll.waitForReadable([socket.rawValue, stopping.readDescriptor], timeout: nil)
/// stopping.signal()   // wakes them all
/// ```
///
/// Both ends are closed when the last reference goes away, so a thread that polls the read end
/// must keep a reference.
package final class WakeupPipe: Sendable {
    /// The end to poll.
    package let readDescriptor: Int32
    private let writeDescriptor: Int32

    /// Opens a close-on-exec pipe.
    /// - Throws: ``SystemError`` from `pipe`.
    package init() throws(SystemError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .current("pipe", path: nil) }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        for fd in ends { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        readDescriptor = ends[0]
        writeDescriptor = ends[1]
    }

    /// Makes the read end readable. Calling it again changes nothing that matters.
    package func signal() {
        var byte: UInt8 = 1
        _ = retryingOnInterrupt { write(writeDescriptor, &byte, 1) }
    }

    /// Makes the read end unreadable again, for a pipe used as a doorbell (rung many times,
    /// answered by one thread) rather than a permanent alarm.
    package func reset() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while bytes.withUnsafeMutableBytes({ buffer in retryingOnInterrupt { read(readDescriptor, buffer.baseAddress, buffer.count) } }) > 0 {}
    }

    deinit {
        _ = close(readDescriptor)
        _ = close(writeDescriptor)
    }
}
