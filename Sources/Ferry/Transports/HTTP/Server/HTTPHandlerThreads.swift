import Foundation

/// The threads that run request handlers, apart from Swift's cooperative pool.
///
/// Handlers do blocking work (an fsync, waiting for a store's lock); on the cooperative pool,
/// which has one thread per core, two such handlers would stall every other task in the
/// process, and other blocking work in the process would stall the server. Tasks started with
/// this executor as their preference run here instead.
final class HTTPHandlerThreads: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false
    private var running = 0

    /// Starts `count` threads.
    init(count: Int) {
        for number in 0..<max(1, count) {
            let thread = Thread { [self] in work() }
            thread.name = "ferry-http-handler-\(number)"
            running += 1
            thread.start()
        }
    }

    /// Lets the threads finish the queued jobs and exit.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    fileprivate func enqueueJob(_ job: UnownedJob) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                running -= 1
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            run(job)
        }
    }

    private func run(_ job: UnownedJob) {
        // Jobs only arrive through the TaskExecutor conformance, which needs these versions.
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Starts `body` as a task that runs on these threads (where task executors exist).
    func startTask(_ body: @escaping @Sendable () async -> Void) {
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *) {
            Task(executorPreference: self) { await body() }
        } else {
            Task { await body() }
        }
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *)
extension HTTPHandlerThreads: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        enqueueJob(UnownedJob(job))
    }
}
