import Dispatch
import Foundation

/// Deadlines for tests: a wait bounded by a deadline ends at the event it waits for, and the
/// deadline only stops a test that would otherwise hang. Nothing here hopes that work got
/// done in a guessed time.
///
/// ```swift
/// let reading = Task { for await change in feed { … } }
/// let watchdog = Deadline.cancel(reading, after: 60)   // a hung feed fails the test, not CI
/// defer { watchdog.cancel() }
/// ```
public enum Deadline {
    /// Cancels `task` once `seconds` pass, unless the returned item is cancelled first.
    @discardableResult
    public static func cancel<Success, Failure>(_ task: Task<Success, Failure>, after seconds: Double) -> DispatchWorkItem {
        let item = DispatchWorkItem { task.cancel() }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
        return item
    }

    /// Returns when `seconds` have passed, or at once when the task is cancelled: the deadline
    /// side of a race (a task group whose other child waits for the event), or the moment
    /// another clock named (a server's).
    public static func reached(after seconds: Double) async {
        let waiter = Waiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiter.set(continuation)
                DispatchQueue.global().asyncAfter(deadline: .now() + max(0, seconds)) { waiter.resume() }
            }
        } onCancel: {
            waiter.resume()
        }
    }

    /// A continuation resumed once, by the timer or by cancellation, whichever comes first.
    private final class Waiter: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Void, Never>?
        private var resumed = false

        func set(_ continuation: CheckedContinuation<Void, Never>) {
            lock.lock()
            if resumed {
                lock.unlock()
                continuation.resume()
            } else {
                self.continuation = continuation
                lock.unlock()
            }
        }

        func resume() {
            lock.lock()
            let waiting = continuation
            continuation = nil
            resumed = true
            lock.unlock()
            waiting?.resume()
        }
    }
}
