#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Timestamped lines on standard error about a live sync's wake-ups, when the environment has
/// `FERRY_TRACE_LIVE` set: when a change feed's bytes arrive, when its events are parsed, when
/// the loop is woken and when its rounds run. For finding where a wake-up waits.
///
/// ```console
/// $ FERRY_TRACE_LIVE=1 ferry sync notes http://127.0.0.1:8080/notes --watch
/// ```
package enum LiveTrace {
    /// Whether tracing is on (read once).
    package static let isOn = ProcessInfo.processInfo.environment["FERRY_TRACE_LIVE"] != nil

    /// Writes `message` with the wall-clock time (seconds modulo 100,000, to the millisecond)
    /// and the process id, if tracing is on.
    package static func note(_ message: @autoclosure () -> String) {
        guard isOn else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let milliseconds = Int(now.tv_nsec) / 1_000_000
        let stamp = "\(now.tv_sec % 100_000).\(String(repeating: "0", count: 3 - String(milliseconds).count))\(milliseconds)"
        let line = Array("live \(stamp) [\(getpid())] \(message())\n".utf8)
        line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }
}
