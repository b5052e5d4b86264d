import Foundation

/// A source of wall-clock time in milliseconds since 1970. Injected into stores so tests can
/// skew, freeze or step back time.
///
/// ```swift
/// let store = try Store.open(at: url, clock: ManualClock(milliseconds: 1_000))
/// ```
public protocol WallClock: Sendable {
    /// The current time in milliseconds since 1970-01-01T00:00:00Z.
    func milliseconds() -> UInt64
}

/// The system's real-time clock.
public struct SystemClock: WallClock {
    public init() {}

    public func milliseconds() -> UInt64 {
        let seconds = Date().timeIntervalSince1970
        return seconds <= 0 ? 0 : UInt64(seconds * 1000)
    }
}

/// A clock that reads a value the test sets, optionally offset from the system clock.
public final class ManualClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: UInt64

    /// Makes a clock that reads `milliseconds` until changed.
    public init(milliseconds: UInt64) { current = milliseconds }

    public func milliseconds() -> UInt64 { lock.withLock { current } }

    /// Sets the time the clock reads.
    public func set(milliseconds: UInt64) { lock.withLock { current = milliseconds } }

    /// Moves the clock by `delta` milliseconds (negative moves it back).
    public func advance(by delta: Int64) {
        lock.withLock { current = UInt64(max(0, Int64(current) + delta)) }
    }
}

/// A clock that reads the system clock shifted by a fixed offset, for skew tests.
public struct OffsetClock: WallClock {
    public let offset: Int64
    public init(offsetMilliseconds: Int64) { offset = offsetMilliseconds }
    public func milliseconds() -> UInt64 {
        UInt64(max(0, Int64(SystemClock().milliseconds()) + offset))
    }
}
