import Foundation

/// A one-shot event for tests: one side opens it, the other waits for it up to a deadline and
/// learns whether it came. The deadline only ends a wait for an event that never comes.
///
/// ```swift
/// let counted = Latch()
/// // in the backend's count(in:):   counted.open()
/// // in its changes(in:…):          let overlapped = await counted.wait(upTo: 60)
/// ```
public final class Latch: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0

    public init() {}

    /// Whether it was opened.
    public var opened: Bool { lock.withLock { isOpen } }

    /// Opens it: every wait ends, now and later.
    public func open() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            isOpen = true
            defer { waiters = [:] }
            return Array(waiters.values)
        }
        for waiter in waiting { waiter.resume() }
    }

    /// Waits until it is opened, or `seconds` pass; whether it was opened.
    public func wait(upTo seconds: Double) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.waitForOpening(); return self.opened }
            group.addTask { await Deadline.reached(after: seconds); return self.opened }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Returns once it is opened, or at once when the task is cancelled.
    private func waitForOpening() async {
        let id = lock.withLock { () -> Int in
            defer { nextWaiter += 1 }
            return nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock { () -> Bool in
                    if isOpen || Task.isCancelled { return true }
                    waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = lock.withLock { waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
