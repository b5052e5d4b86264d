import Foundation
import Testing

/// Runs each test of a suite (or one test) on a thread of its own instead of Swift's
/// cooperative pool.
///
/// ```swift
/// @Suite(.eachTestOnItsOwnThread) struct HTTPServerTests { … }
/// ```
///
/// A parallel `swift test` runs every test on the cooperative pool: one thread per core, two
/// on a two-core machine, shared by hundreds of tests that write files and run processes. A
/// test that awaits something queues behind them all and may get its next turn half a minute
/// later. That is harmless for most tests; it is not for a test whose steps race a deadline
/// elsewhere: a client between two writes while the server's stall timeout runs, a request
/// that must reach the server before it stops. Under this trait everything the test awaits
/// resumes on the test's own thread (its child tasks too, though not `Task {}`), so its
/// steps follow each other as quickly as the machine allows, however busy the pool is.
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// One scope per test case (each argument of a parameterized test), none for a suite.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *) {
            try await withTaskExecutorPreference(OwnThreadExecutor()) { try await function() }
        } else {
            try await function()
        }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Runs each test on a thread of its own (see ``OwnThreadTrait``).
    public static var eachTestOnItsOwnThread: Self { Self() }
}

/// Runs the jobs of one test, one at a time, on a thread that starts when a job arrives and
/// ends after a second without one (so a test that waits long, or has ended, holds none).
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *)
final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var hasThread = false

    func enqueue(_ job: consuming ExecutorJob) {
        condition.lock()
        jobs.append(UnownedJob(job))
        let startThread = !hasThread
        hasThread = true
        condition.signal()
        condition.unlock()
        if startThread {
            Thread { [self] in work() }.start()
        }
    }

    private func work() {
        condition.lock()
        while true {
            if jobs.isEmpty {
                _ = condition.wait(until: Date().addingTimeInterval(1))
            }
            guard !jobs.isEmpty else {
                hasThread = false
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            condition.lock()
        }
    }
}
