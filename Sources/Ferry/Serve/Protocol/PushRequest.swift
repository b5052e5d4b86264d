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
    ///
    /// Each group ends where every signing origin's last change is signed (see ``SealedRuns``),
    /// so the server can check it on its own; a writer signs at least every 256 KiB of its
    /// changes, so such a point comes well within any sane limit. Only when none does is a
    /// group cut unsigned, and the server then refuses it with a clear error.
    package static func groups(of changes: [Change], maximumBytes: Int) -> [Group] {
        let endsSigned = SealedRuns.endsSigned(changes)
        var encoded: [[UInt8]] = []
        encoded.reserveCapacity(changes.count)
        for change in changes {
            var one: [UInt8] = []
            change.writeCanonicalJSON(to: &one)
            encoded.append(one)
        }
        var groups: [Group] = []
        var start = 0
        while start < changes.count {
            var bytes = 0
            var end = start
            var lastSigned: Int?
            while end < changes.count, end == start || bytes + 1 + encoded[end].count <= maximumBytes {
                bytes += (end == start ? 0 : 1) + encoded[end].count
                if endsSigned[end] { lastSigned = end }
                end += 1
            }
            if end < changes.count, let lastSigned { end = lastSigned + 1 }
            var group = Group(start: start, count: end - start, encoded: [])
            for index in start..<end {
                if index > start { group.encoded.append(UInt8(ascii: ",")) }
                group.encoded += encoded[index]
            }
            groups.append(group)
            start = end
        }
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
