import Foundation

/// The threads that run request handlers, apart from Swift's cooperative pool.
///
/// Handlers do blocking work (an fsync, waiting for a store's lock); on the cooperative pool,
/// which has one thread per core, two such handlers would stall every other task in the
/// process, and other blocking work in the process would stall the server. Tasks started with
/// this executor as their preference run here instead.
///
/// Threads start when work arrives (up to `maximum`) and end after a few idle seconds, so an
/// idle or forgotten server holds no threads.
final class HTTPHandlerThreads: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false
    private var threads = 0
    private var idle = 0
    private let maximum: Int
    private let idleSeconds: Double

    init(maximum: Int, idleSeconds: Double = 3) {
        self.maximum = max(1, maximum)
        self.idleSeconds = idleSeconds
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
        let startThread = idle == 0 && threads < maximum
        if startThread { threads += 1 }
        condition.signal()
        condition.unlock()
        if startThread {
            let thread = Thread { [self] in work() }
            thread.name = "ferry-http-handler"
            thread.start()
        }
    }

    private func work() {
        condition.lock()
        while true {
            if jobs.isEmpty && !stopping {
                idle += 1
                let deadline = Date().addingTimeInterval(idleSeconds)
                while jobs.isEmpty && !stopping && condition.wait(until: deadline) {}
                idle -= 1
            }
            guard !jobs.isEmpty else {
                threads -= 1
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            run(job)
            condition.lock()
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
