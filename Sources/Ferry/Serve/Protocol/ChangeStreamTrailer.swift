/// The last line of a change stream (`changes` and `snapshot` responses): how far the
/// server read and where its journal ended. A stream without it was cut short.
///
/// ```json
/// {"count":2,"end":true,"head":44,"through":44}
/// ```
package struct ChangeStreamTrailer: Sendable, Equatable {
    /// The journal position read through: pass it as `after` for the next page.
    package var through: UInt64
    /// The journal's head when the stream started.
    package var head: UInt64
    /// The changes the stream carried.
    package var count: Int

    /// Makes a trailer.
    package init(through: UInt64, head: UInt64, count: Int) {
        self.through = through
        self.head = head
        self.count = count
    }

    /// The line, with its newline.
    package var lineBytes: [UInt8] {
        Array(#"{"count":\#(count),"end":true,"head":\#(head),"through":\#(through)}"#.utf8) + [UInt8(ascii: "\n")]
    }

    /// Reads the trailer from the members of its line.
    init(members: [String: JSONValue]) throws(RemoteMessageError) {
        guard let through = try RemoteMessageError.count(members, "through"),
            let head = try RemoteMessageError.count(members, "head"),
            let count = try RemoteMessageError.count(members, "count")
        else { throw RemoteMessageError("the end line needs \"through\", \"head\" and \"count\"") }
        guard through <= head else { throw RemoteMessageError("the end line reads past the head") }
        self.init(through: through, head: head, count: Int(clamping: count))
    }
}
