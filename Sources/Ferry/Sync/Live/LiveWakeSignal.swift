import Foundation

/// Where the reasons for a live sync's next round gather, from any thread, and where its
/// loop waits for them with a deadline, holding no thread: the causes raised while a round
/// runs are one round after it, however many there were (a burst of writes is a few rounds).
final class LiveWakeSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var causes: Set<LiveSync.Cause> = []
    private var closed = false
    private var waiter: CheckedContinuation<Void, Never>?
    /// Counts the waits, so that a deadline of an earlier wait raises nothing.
    private var generation = 0

    /// Adds a reason for the next round and wakes the loop.
    func raise(_ cause: LiveSync.Cause) {
        raise(cause, generation: nil)
    }

    /// Wakes the loop for good: ``wait(timeout:)`` returns at once from now on.
    func close() {
        lock.lock()
        closed = true
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume()
    }

    var isClosed: Bool { lock.withLock { closed } }

    /// Waits until a cause is raised, the signal is closed, or `timeout` passes (then the
    /// cause is ``LiveSync/Cause/due``), and takes the causes; empty when closed.
    func wait(timeout: Duration) async -> Set<LiveSync.Cause> {
        let current: Int = lock.withLock {
            generation += 1
            return generation
        }
        let deadline = Task { [weak self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            self?.raise(.due, generation: current)
        }
        defer { deadline.cancel() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if closed || !causes.isEmpty {
                lock.unlock()
                continuation.resume()
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
        return lock.withLock {
            if closed { return [] }
            defer { causes = [] }
            return causes
        }
    }

    private func raise(_ cause: LiveSync.Cause, generation wanted: Int?) {
        lock.lock()
        if let wanted, wanted != generation {
            lock.unlock()
            return
        }
        causes.insert(cause)
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume()
    }
}
