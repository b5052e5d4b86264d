import Foundation

/// Lets through at most one log line per key (a client's address group) per interval, and
/// counts the lines it holds back, so a client that reconnects a thousand times a second
/// writes one line a second, not a thousand, and the line says how many it stands for.
///
/// ```swift
/// let throttle = HTTPLogThrottle(interval: .seconds(1))
/// if let held = throttle.admit("127.0.0.3", now: .now) {
///     log("… refused" + (held > 0 ? " (and \(held) more like it)" : ""))
/// }
/// ```
final class HTTPLogThrottle: @unchecked Sendable {
    private let lock = NSLock()
    private let interval: Duration
    /// Per key: when a line was last let through, and the lines held back since.
    private var keys: [String: (last: ContinuousClock.Instant, held: Int)] = [:]
    /// Past this many keys, those quiet for an interval are forgotten (their held-back count
    /// with them), so the table stays small whatever addresses come and go.
    private let maximumKeys = 4096

    init(interval: Duration = .seconds(1)) {
        self.interval = interval
    }

    /// Whether a line for `key` may be written at `now`: the number of lines held back for it
    /// since the last one (to mention), or `nil` when this one is to be held back too.
    func admit(_ key: String, now: ContinuousClock.Instant) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        if let entry = keys[key], entry.last.duration(to: now) < interval {
            keys[key] = (entry.last, entry.held + 1)
            return nil
        }
        if keys.count >= maximumKeys {
            keys = keys.filter { $0.value.last.duration(to: now) < interval }
        }
        let held = keys[key]?.held ?? 0
        keys[key] = (now, 0)
        return held
    }

    /// `line` with the count `held` of like lines held back, as ``admit(_:now:)`` returns it.
    static func line(_ line: String, held: Int) -> String {
        held > 0 ? line + " [and \(held) more like it from this client in the last second(s)]" : line
    }
}
