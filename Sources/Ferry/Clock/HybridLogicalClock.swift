/// A hybrid logical clock: stamps that never go backwards, stay close to wall-clock time, and
/// move past every stamp received from another replica.
///
/// Not thread-safe on its own; the store that owns it serializes access.
///
/// ```swift
/// var clock = HybridLogicalClock(wallClock: SystemClock())
/// let stamp = clock.tick()            // a local change
/// clock.receive(remoteStamp)          // a change from a peer
/// ```
public struct HybridLogicalClock: Sendable {
    /// The wall clock the physical part follows.
    public let wallClock: any WallClock
    /// The latest stamp made or received.
    public private(set) var latest: HybridTimestamp

    public init(wallClock: any WallClock, latest: HybridTimestamp = .zero) {
        self.wallClock = wallClock
        self.latest = latest
    }

    /// Makes a stamp for a local change: later than every stamp seen so far.
    public mutating func tick() -> HybridTimestamp {
        let now = wallClock.milliseconds()
        if now > latest.physical {
            latest = HybridTimestamp(physical: now, logical: 0)
        } else if latest.logical == UInt32.max {
            latest = HybridTimestamp(physical: latest.physical + 1, logical: 0)
        } else {
            latest = HybridTimestamp(physical: latest.physical, logical: latest.logical + 1)
        }
        return latest
    }

    /// Moves the clock past a stamp received from another replica, so the next local stamp
    /// orders after it.
    public mutating func receive(_ stamp: HybridTimestamp) {
        if stamp > latest { latest = stamp }
    }

    /// Moves the clock past `stamp` when it is later; used when replaying a journal.
    public mutating func observe(_ stamp: HybridTimestamp) { receive(stamp) }
}
