import Testing

@testable import Ferry

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
        ahead.start(1) {
            // Waits until cancelled (or a minute, which the test never reaches).
            try? await Task.sleep(nanoseconds: 60_000_000_000)
            return Task.isCancelled
        }
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
        ahead.start(1) {
            try? await Task.sleep(nanoseconds: 60_000_000_000)
            return Task.isCancelled
        }
        ahead.start(2) { false }
        #expect(await ahead.take(2)?.value == false)
        ahead.cancel()
        #expect(ahead.take(2) == nil)
    }
}
