import Dispatch

/// Work started on another thread, collected later with ``value()``: the journal scan reads
/// and hashes the next segment while it replays the current one, and verify checks the archive
/// while it scans the live journal.
///
/// ```swift
/// let next = BackgroundWork { PreparedSegment(segment, directory: directory, isLast: false) }
/// // … other work …
/// let prepared = next.value()
/// ```
final class BackgroundWork<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: T?

    init(_ work: @escaping @Sendable () -> T) {
        DispatchQueue.global().async {
            self.result = work()
            self.done.signal()
        }
    }

    /// Waits for the work and returns its result (at once, when called again).
    func value() -> T? {
        done.wait()
        defer { done.signal() }
        return result
    }
}
