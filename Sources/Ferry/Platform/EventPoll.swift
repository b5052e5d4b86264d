#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
import CFerryEpoll
#endif

/// Readiness of many descriptors at once, for one thread that serves thousands of idle
/// sockets: `epoll` on Linux, where waiting costs nothing per descriptor; `poll` over the
/// registered set elsewhere (fine for the few a development machine holds).
///
/// ```swift
/// let events = try EventPoll()
/// try events.add(socket.rawValue, interest: .readable)
/// for ready in try events.wait(timeout: .seconds(15)) where ready.hangUp { close(ready.descriptor) }
/// ```
///
/// Level-triggered: a descriptor is reported for as long as it is ready. The caller owns the
/// descriptors it adds and removes one before closing it.
package final class EventPoll {
    /// What to be told about a descriptor.
    package struct Interest: OptionSet, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Something to read (or the end of the stream).
        package static let readable = Interest(rawValue: 1)
        /// Room to write.
        package static let writable = Interest(rawValue: 2)
    }

    /// A descriptor that is ready.
    package struct Readiness: Sendable {
        package var descriptor: Int32
        package var readable: Bool
        package var writable: Bool
        /// The peer closed its side, or the descriptor failed: nothing more will come.
        package var hangUp: Bool
    }

    #if os(Linux)
    private let descriptor: Int32
    private var buffer = [epoll_event](repeating: epoll_event(), count: 256)
    #else
    private var interests: [Int32: Interest] = [:]
    #endif

    /// Opens an epoll instance (close-on-exec).
    /// - Throws: ``SystemError`` from `epoll_create1`.
    package init() throws(SystemError) {
        #if os(Linux)
        descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else { throw .current("epoll_create1", path: nil) }
        #endif
    }

    deinit {
        #if os(Linux)
        _ = close(descriptor)
        #endif
    }

    /// Starts reporting `fd`.
    package func add(_ fd: Int32, interest: Interest) throws(SystemError) {
        #if os(Linux)
        try control(EPOLL_CTL_ADD, fd, interest)
        #else
        interests[fd] = interest
        #endif
    }

    /// Changes what is reported about `fd`.
    package func modify(_ fd: Int32, interest: Interest) throws(SystemError) {
        #if os(Linux)
        try control(EPOLL_CTL_MOD, fd, interest)
        #else
        interests[fd] = interest
        #endif
    }

    /// Stops reporting `fd` (before it is closed). A descriptor not registered is ignored.
    package func remove(_ fd: Int32) {
        #if os(Linux)
        var event = epoll_event()
        _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, fd, &event)
        #else
        interests[fd] = nil
        #endif
    }

    /// Waits until a descriptor is ready or `timeout` passes (`nil`: for ever); `EINTR` ends
    /// the wait early with nothing ready.
    /// - Returns: the ready descriptors, empty after the timeout.
    package func wait(timeout: Duration?) throws(SystemError) -> [Readiness] {
        let milliseconds = timeout.map(Poll.milliseconds) ?? -1
        #if os(Linux)
        let count = buffer.withUnsafeMutableBufferPointer { events in
            epoll_wait(descriptor, events.baseAddress, Int32(events.count), milliseconds)
        }
        if count < 0 {
            if errno == EINTR { return [] }
            throw .current("epoll_wait", path: nil)
        }
        let hangUp = EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue
        return buffer.prefix(Int(count)).map { event in
            Readiness(
                descriptor: event.data.fd, readable: event.events & EPOLLIN.rawValue != 0,
                writable: event.events & EPOLLOUT.rawValue != 0, hangUp: event.events & hangUp != 0)
        }
        #else
        let order = Array(interests.keys)
        var entries = order.map { fd -> pollfd in
            let interest = interests[fd] ?? []
            var events: Int16 = 0
            if interest.contains(.readable) { events |= Int16(POLLIN) }
            if interest.contains(.writable) { events |= Int16(POLLOUT) }
            return pollfd(fd: fd, events: events, revents: 0)
        }
        let count = entries.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), milliseconds) }
        if count < 0 {
            if errno == EINTR { return [] }
            throw .current("poll", path: nil)
        }
        return entries.filter { $0.revents != 0 }.map { entry in
            Readiness(
                descriptor: entry.fd, readable: entry.revents & Int16(POLLIN) != 0,
                writable: entry.revents & Int16(POLLOUT) != 0,
                hangUp: entry.revents & (Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)) != 0)
        }
        #endif
    }

    #if os(Linux)
    private func control(_ operation: Int32, _ fd: Int32, _ interest: Interest) throws(SystemError) {
        var mask = EPOLLRDHUP.rawValue
        if interest.contains(.readable) { mask |= EPOLLIN.rawValue }
        if interest.contains(.writable) { mask |= EPOLLOUT.rawValue }
        var event = epoll_event()
        event.events = mask
        event.data.fd = fd
        guard epoll_ctl(descriptor, operation, fd, &event) == 0 else { throw .current("epoll_ctl", path: nil) }
    }
    #endif
}
