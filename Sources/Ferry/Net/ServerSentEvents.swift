/// Splits a `text/event-stream` body into messages (the WHATWG rules Ferry needs: `event`,
/// `data` joined by newlines, `id`, comments and other fields ignored, a blank line
/// dispatches), for PocketBase's realtime feed and `ferry serve`'s change feed.
struct ServerSentEvents: Sendable {
    struct Message: Sendable, Equatable {
        var event: String
        var data: String
        /// The message's `id` field, when it has one.
        var id: String? = nil
    }

    private var line: [UInt8] = []
    private var event = ""
    private var data: [String] = []
    private var id: String?
    /// A line longer than this is cut: a stream cannot make the reader hold without bound.
    static let maximumLine = 16 << 20

    mutating func feed(_ bytes: [UInt8]) -> [Message] {
        var messages: [Message] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                if let message = take(String(decoding: line, as: UTF8.self)) { messages.append(message) }
                line.removeAll(keepingCapacity: true)
            } else if line.count < Self.maximumLine {
                line.append(byte)
            }
        }
        return messages
    }

    private mutating func take(_ text: String) -> Message? {
        if text.isEmpty {
            defer { event = ""; data = []; id = nil }
            guard !data.isEmpty || !event.isEmpty else { return nil }
            return Message(event: event.isEmpty ? "message" : event, data: data.joined(separator: "\n"), id: id)
        }
        if text.hasPrefix(":") { return nil }
        let name: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            name = Substring(text)
            value = ""
        }
        switch name {
        case "event": event = String(value)
        case "data": data.append(String(value))
        case "id": id = String(value)
        default: break
        }
        return nil
    }
}
