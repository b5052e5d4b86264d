import Foundation
import Testing

@testable import Ferry

/// Waits, without a timer, until the task it runs in is cancelled; then true.
private func untilCancelled() async -> Bool {
    await CancellationProbe().wait()
}

/// A fetch that finishes only when its task is cancelled; ``cancelled`` says when it was.
private final class CancellationProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var opened = false
    private var waiting: CheckedContinuation<Void, Never>?
    private let (stream, continuation) = AsyncStream<Bool>.makeStream()

    /// True once the fetch saw its task cancelled.
    var cancelled: Task<Bool, Never> {
        Task { [stream] in
            for await value in stream { return value }
            return false
        }
    }

    func wait() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (next: CheckedContinuation<Void, Never>) in
                let resumeNow = lock.withLock { () -> Bool in
                    if opened { return true }
                    waiting = next
                    return false
                }
                if resumeNow { next.resume() }
            }
        } onCancel: {
            let parked = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                opened = true
                defer { waiting = nil }
                return waiting
            }
            parked?.resume()
        }
        continuation.yield(Task.isCancelled)
        continuation.finish()
        return Task.isCancelled
    }
}

/// ``PagePrefetch``: a page read ahead is taken only by the request it answers.
@Suite struct PagePrefetchTests {
    @Test func thePageStartedIsTakenByItsKeyOnce() async {
        let ahead = PagePrefetch<Int, String>()
        #expect(ahead.take(1) == nil)
        ahead.start(1) { "page after 1" }
        #expect(await ahead.take(1)?.value == "page after 1")
        #expect(ahead.take(1) == nil)
    }

    @Test func anotherKeyCancelsThePageAndGetsNothing() async {
        let ahead = PagePrefetch<Int, Bool>()
        ahead.start(1) { await untilCancelled() }
        let started = ahead.take(1)
        #expect(started != nil)
        ahead.start(2) { Task.isCancelled }
        #expect(ahead.take(3) == nil)
        started?.cancel()
        #expect(await started?.value == true)
        #expect(ahead.take(2) == nil)
    }

    @Test func startingAnotherPageCancelsTheFirst() async {
        let ahead = PagePrefetch<Int, Bool>()
        let first = CancellationProbe()
        ahead.start(1) { await first.wait() }
        ahead.start(2) { false }
        #expect(await first.cancelled.value)
        #expect(await ahead.take(2)?.value == false)
        ahead.cancel()
        #expect(ahead.take(2) == nil)
    }
}
