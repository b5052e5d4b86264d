import Foundation

/// Calls a closure every `interval` seconds on a thread of its own until stopped: what keeps a
/// ``ProgressLine`` moving while one step of the work reports nothing (a parse of a large file
/// in one call), so the terminal never goes two seconds without a line.
///
/// ```swift
/// let beat = ProgressHeartbeat(interval: 1) { line.redrawIfQuiet() }
/// beat.start()
/// // … the work …
/// beat.stop()
/// ```
final class ProgressHeartbeat: @unchecked Sendable {
    private let interval: Double
    private let beat: @Sendable () -> Void
    private let condition = NSCondition()
    private var isRunning = false
    private var isStopped = false

    init(interval: Double, beat: @escaping @Sendable () -> Void) {
        self.interval = interval
        self.beat = beat
    }

    /// Starts the thread, once; later calls do nothing.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard !isRunning && !isStopped else { return }
        isRunning = true
        let thread = Thread { [self] in run() }
        thread.name = "ferry-progress-heartbeat"
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// Stops the thread (it beats no more once this returns); it cannot be started again.
    func stop() {
        condition.lock()
        isStopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        condition.lock()
        defer { condition.unlock() }
        while !isStopped {
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval))
            if isStopped { return }
            // Beating under the lock: a stop waits for a beat under way, so none comes after.
            beat()
        }
    }
}
