/// The body of `POST /v1/stores/<name>/push`: a batch of changes for the store to apply
/// atomically, and optionally a tighter clock-skew bound than the server's own.
///
/// ```json
/// {"changes":[{"counter":1,"doc":{"title":"hi"},"entity":"Note","hlc":"1700000000123.0",
///   "id":"n1","op":"put","origin":"6b1c…","vv":{"6b1c…":1}}],"maximumSkew":86400000}
/// ```
package struct PushRequest: Sendable, Equatable {
    /// The changes, in the order they are to be applied (the sender's journal order).
    package var changes: [Change]
    /// A received change stamped further ahead of the server's clock than this (in
    /// milliseconds) is refused; the server never allows more than its own bound.
    package var maximumSkew: UInt64?

    /// Makes a push.
    package init(changes: [Change], maximumSkew: UInt64? = nil) {
        self.changes = changes
        self.maximumSkew = maximumSkew
    }

    /// A run of changes for one request: where it starts in the list, how many, and their JSON.
    package struct Group: Sendable {
        package var start: Int
        package var count: Int
        package var encoded: [UInt8]
    }

    /// Cuts `changes` into runs whose encoded changes stay within `maximumBytes` (a change
    /// larger than that forms a run of its own), in order.
    package static func groups(of changes: [Change], maximumBytes: Int) -> [Group] {
        var groups: [Group] = []
        var current = Group(start: 0, count: 0, encoded: [])
        for (index, change) in changes.enumerated() {
            var one: [UInt8] = []
            change.writeCanonicalJSON(to: &one)
            if current.count > 0 && current.encoded.count + 1 + one.count > maximumBytes {
                groups.append(current)
                current = Group(start: index, count: 0, encoded: [])
            }
            if current.count > 0 { current.encoded.append(UInt8(ascii: ",")) }
            current.encoded += one
            current.count += 1
        }
        if current.count > 0 { groups.append(current) }
        return groups
    }

    /// The body of a push whose changes are already encoded, comma-separated.
    package static func body(encodedChanges: [UInt8], maximumSkew: UInt64?) -> [UInt8] {
        var bytes: [UInt8] = Array(#"{"changes":["#.utf8)
        bytes += encodedChanges
        bytes.append(UInt8(ascii: "]"))
        if let maximumSkew { bytes.append(contentsOf: #","maximumSkew":\#(maximumSkew)"#.utf8) }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// The canonical JSON body.
    package func bodyBytes() -> [UInt8] {
        var bytes: [UInt8] = Array(#"{"changes":["#.utf8)
        for (index, change) in changes.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            change.writeCanonicalJSON(to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        if let maximumSkew { bytes.append(contentsOf: #","maximumSkew":\#(maximumSkew)"#.utf8) }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Reads and checks a push body: every change must be complete and well formed. A server
    /// reads it as it arrives with ``PushRequestDecoder``; this reads one already whole.
    /// - Throws: ``RemoteMessageError`` such as `changes[3].hlc: must be <milliseconds>.<logical>`.
    package init(body: [UInt8]) throws(RemoteMessageError) {
        var decoder = PushRequestDecoder()
        try decoder.feed(body)
        self = try decoder.finish()
    }
}
