#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Waiting for descriptors to become readable (`poll`), with a deadline.
///
/// ```swift
/// let ready = try Poll.waitForReadable([socket.rawValue, wakeup.readDescriptor], timeout: .seconds(10))
/// if ready[1] { /* woken */ } else if ready[0] { /* data, end of stream or an error */ }
/// ```
package enum Poll {
    /// Waits until at least one descriptor can be read without blocking (data, end of stream,
    /// a pending error or a hang-up all count), or until `timeout` passes. `EINTR` restarts the
    /// wait with what remains of the timeout.
    /// - Parameters:
    ///   - descriptors: at most a handful of descriptors.
    ///   - timeout: how long to wait; `nil` waits for ever.
    /// - Returns: one flag per descriptor, all `false` when the timeout passed.
    /// - Throws: ``SystemError`` from `poll`.
    package static func waitForReadable(_ descriptors: [Int32], timeout: Duration?) throws(SystemError) -> [Bool] {
        var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now.advanced(by: $0) }
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                milliseconds = Self.milliseconds(clock.now.duration(to: deadline))
            }
            let count = entries.withUnsafeMutableBufferPointer { buffer in
                poll(buffer.baseAddress, nfds_t(buffer.count), milliseconds)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .current("poll", path: nil)
            }
            let readable = Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
            return entries.map { $0.revents & readable != 0 }
        }
    }

    /// A duration rounded up to whole milliseconds, clamped to what `poll` takes.
    static func milliseconds(_ duration: Duration) -> Int32 {
        if duration <= .zero { return 0 }
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: total)
    }
}
