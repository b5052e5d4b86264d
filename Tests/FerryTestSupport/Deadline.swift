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

    /// Runs `work` as a child task, cancelled once `seconds` pass, and returns what it returns
    /// (after a cancel, what it made of it: a feed's reader returns what it read so far).
    /// Unlike a `Task {}` under ``cancel(_:after:)``, the child keeps the test's executor: under
    /// `.eachTestOnItsOwnThread` it runs on the test's own thread, not behind every other test
    /// on a busy cooperative pool (where a feed's reader once waited 300 s for its first turn).
    ///
    /// ```swift
    /// let taken = try await Deadline.run(within: 300) { try await firstChanges(of: store) }
    /// ```
    public static func run<Result: Sendable>(
        within seconds: Double, _ work: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                await reached(after: seconds)
                return nil
            }
            while let next = try await group.next() {
                group.cancelAll()
                // The deadline's child ends first with nil; the work's own result follows.
                if let result = next { return result }
            }
            throw CancellationError()
        }
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
