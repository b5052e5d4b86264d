import Ferry
import Foundation

/// A progress line on standard error for long commands (import, export, verify, status, commit,
/// sync, compact): what is done of how much, the rate and an estimate of the time left, redrawn in
/// place at most a few times per second and erased when the work ends, so nothing of it stays
/// in the terminal.
///
/// Silent unless standard error is a terminal, and with `--json` (whose callers read stdout
/// as data and may not want anything else on a terminal either):
///
/// ```swift
/// let line = ProgressLine.standardError("verify", context: context, enabled: !arguments.flag("json"))
/// let report = try StoreVerifier(path: path).verify(progress: line.handler)
/// line.finish()
/// // while running:  verify: record files 412,000/1,000,000  52,100/s  0:11 left
/// ```
///
/// Time comes from an injected clock, so tests drive it with made-up times.
final class ProgressLine: @unchecked Sendable {
    /// The command's name, first on the line.
    let label: String
    /// Whether anything is drawn.
    let isEnabled: Bool
    /// The terminal's width; the line is cut to fit it (less one column, so it never wraps).
    let width: Int
    /// The least time between two redraws, in seconds.
    let interval: Double
    private let clock: @Sendable () -> Double
    private let write: @Sendable (String) -> Void
    private let lock = NSLock()
    private var task: String?
    private var taskStart = 0.0
    private var lastDraw: Double?
    private var drawn = false
    /// The last report, and when it came: what a quiet step's line is redrawn from.
    private var lastProgress: WorkProgress?
    private var lastReport = 0.0
    /// Redraws the line while a step reports nothing (see ``redrawIfQuiet()``), when asked for.
    private var heartbeat: ProgressHeartbeat?

    /// - Parameters:
    ///   - isEnabled: Draw at all (standard error is a terminal and no `--json`).
    ///   - clock: Seconds since any fixed point.
    ///   - write: Writes text to the terminal as it is.
    ///   - heartbeat: Seconds between two redraws of a step that reports nothing meanwhile, on a
    ///     thread of the line's own from its first update until ``finish()``; none when `nil`.
    init(
        label: String, isEnabled: Bool, width: Int = 80, interval: Double = 0.25,
        clock: @escaping @Sendable () -> Double, write: @escaping @Sendable (String) -> Void, heartbeat: Double? = nil
    ) {
        self.label = label
        self.isEnabled = isEnabled
        self.width = max(20, width)
        self.interval = interval
        self.clock = clock
        self.write = write
        if let heartbeat, isEnabled {
            self.heartbeat = ProgressHeartbeat(interval: heartbeat) { [weak self] in self?.redrawIfQuiet() }
        }
    }

    /// The line for a command: on standard error when it is a terminal and `enabled`, with the
    /// terminal's width from `COLUMNS` (80 when unset).
    static func standardError(_ label: String, context: CommandContext, enabled: Bool = true) -> ProgressLine {
        let stderr = context.stderr
        let columns = context.environment["COLUMNS"].flatMap { Int($0) } ?? 80
        return ProgressLine(
            label: label, isEnabled: enabled && context.stderrIsTerminal && context.verbosity != .quiet, width: columns,
            clock: { ProcessInfo.processInfo.systemUptime }, write: { stderr.write($0) }, heartbeat: 1)
    }

    /// The callback to hand to the library.
    var handler: WorkProgressHandler? {
        guard isEnabled else { return nil }
        return { [self] progress in update(progress) }
    }

    /// Takes a report of progress; redraws when the last redraw is older than ``interval`` (or
    /// a new task began, or the task is done).
    func update(_ progress: WorkProgress) {
        guard isEnabled else { return }
        let now = clock()
        heartbeat?.start()
        let text: String? = lock.withLock {
            lastProgress = progress
            lastReport = now
            if progress.task != task {
                task = progress.task
                taskStart = now
                lastDraw = nil
            }
            let finished = progress.total.map { progress.done >= $0 } ?? false
            if let lastDraw, now - lastDraw < interval, !finished { return nil }
            lastDraw = now
            drawn = true
            return Self.format(progress, label: label, elapsed: now - taskStart, width: width)
        }
        if let text { write("\r" + text + "\u{1B}[K") }
    }

    /// Runs `work` with this line's ``handler``, then erases the line, whether `work` returned
    /// or threw:
    ///
    /// ```swift
    /// let report = try progress.during { try store.compact(options, progress: $0) }
    /// ```
    func during<T>(_ work: (WorkProgressHandler?) throws -> T) rethrows -> T {
        defer { finish() }
        return try work(handler)
    }

    /// Writes `text` as a line of its own, whether or not the progress line is drawn (erasing
    /// it first, to be drawn again by the next update): a note that must be seen before the
    /// work it is about.
    func note(_ text: String) {
        let erase: Bool = lock.withLock {
            defer {
                drawn = false
                lastDraw = nil
            }
            return drawn
        }
        write((erase ? "\r\u{1B}[K" : "") + text + "\n")
    }

    /// Redraws the line of a step that has reported nothing for a heartbeat or more, with how
    /// long it has been at it (`import: parsing  0.0 MB/108.0 MB  working, 0:04`), so a step
    /// that reports only as it ends still shows it is alive.
    func redrawIfQuiet() {
        let text: String? = lock.withLock {
            let now = clock()
            guard drawn, let progress = lastProgress, now - lastReport >= 1 else { return nil }
            lastDraw = now
            let line = Self.format(progress, label: label, elapsed: now - taskStart, width: Int.max)
                + "  working, " + Self.duration(now - taskStart)
            let limit = max(1, width - 1)
            return line.count <= limit ? line : String(line.prefix(limit - 1)) + "…"
        }
        if let text { write("\r" + text + "\u{1B}[K") }
    }

    /// Erases the line, if one was drawn, and stops the heartbeat.
    func finish() {
        heartbeat?.stop()
        let erase: Bool = lock.withLock {
            defer { drawn = false }
            return drawn
        }
        if erase { write("\r\u{1B}[K") }
    }

    /// The line's text: `label: task done/total  rate  time left`, cut to `width − 1` columns.
    /// The rate and the estimate are left out until there is something to base them on.
    static func format(_ progress: WorkProgress, label: String, elapsed: Double, width: Int) -> String {
        var parts = ["\(label): \(progress.task)"]
        let done = amount(progress.done, unit: progress.unit, withUnit: progress.total == nil)
        if let total = progress.total {
            parts.append(done + "/" + amount(total, unit: progress.unit, withUnit: true))
        } else {
            parts.append(done)
        }
        if elapsed >= 0.5 && progress.done > 0 {
            let rate = Double(progress.done) / elapsed
            parts.append(self.rate(rate, unit: progress.unit))
            if let total = progress.total, total > progress.done, rate > 0 {
                parts.append(duration(Double(total - progress.done) / rate) + " left")
            }
        }
        let line = parts.joined(separator: "  ")
        let limit = max(1, width - 1)
        return line.count <= limit ? line : String(line.prefix(limit - 1)) + "…"
    }

    /// `1,234` items or `12.3 MB` (with the unit's name after items when asked).
    static func amount(_ value: Int, unit: WorkProgress.Unit, withUnit: Bool) -> String {
        switch unit {
        case .items(let name): return withUnit ? "\(grouped(value)) \(name)" : grouped(value)
        case .bytes: return megabytes(Double(value))
        }
    }

    static func rate(_ perSecond: Double, unit: WorkProgress.Unit) -> String {
        switch unit {
        case .items: return "\(grouped(Int(perSecond.rounded())))/s"
        case .bytes: return megabytes(perSecond) + "/s"
        }
    }

    static func megabytes(_ bytes: Double) -> String {
        String(format: "%.1f MB", bytes / 1_000_000)
    }

    /// `0:07`, `12:30`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(min(seconds, 359_999).rounded(.up))
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        let tail = String(format: "%02d", rest)
        return hours > 0 ? String(format: "%d:%02d:", hours, minutes) + tail : "\(minutes):" + tail
    }

    /// `1234567` → `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }
}
