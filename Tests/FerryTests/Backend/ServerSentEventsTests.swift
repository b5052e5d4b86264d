import Testing
@testable import Ferry

/// The event-stream reader behind `--watch` with PocketBase and `ferry serve`'s change feed: any
/// split of the bytes gives the same messages, each with its own `id` (the feed's resume point).
@Suite struct ServerSentEventsTests {
    @Test func messagesWhateverTheSplit() {
        let text = ": a comment\r\nid:abc\r\nevent:PB_CONNECT\r\ndata:{\"clientId\":\"abc\"}\r\n\r\n"
            + "event: Note/*\ndata: {\"action\":\"update\",\ndata: \"record\":{}}\n\n" + "data:plain\n\n" + "retry: 5\n\n"
        let expected = [
            ServerSentEvents.Message(event: "PB_CONNECT", data: #"{"clientId":"abc"}"#, id: "abc"),
            ServerSentEvents.Message(event: "Note/*", data: "{\"action\":\"update\",\n\"record\":{}}"),
            ServerSentEvents.Message(event: "message", data: "plain"),
        ]
        let bytes = Array(text.utf8)
        for size in [1, 2, 5, 17, bytes.count] {
            var parser = ServerSentEvents()
            var messages: [ServerSentEvents.Message] = []
            var start = 0
            while start < bytes.count {
                messages += parser.feed(Array(bytes[start..<min(bytes.count, start + size)]))
                start += size
            }
            #expect(messages == expected, "pieces of \(size)")
        }
    }
}
