/// Reads a change stream (JSON Lines: one change per line, then the ``ChangeStreamTrailer``)
/// as its bytes arrive, so a large pull never has to sit whole in memory.
///
/// ```swift
/// var decoder = ChangeStreamDecoder()
/// for piece in pieces { changes += try decoder.feed(piece) }
/// let trailer = try decoder.finish()     // throws if the stream was cut short
/// ```
package struct ChangeStreamDecoder: Sendable {
    private var pending: [UInt8] = []
    private var lineNumber = 0
    /// The trailer, once its line has arrived.
    package private(set) var trailer: ChangeStreamTrailer?
    /// Changes decoded so far.
    package private(set) var changeCount = 0

    /// Makes a decoder at the start of a stream.
    package init() {}

    /// Decodes the complete lines in `bytes` (and before them, what an earlier call left over).
    /// - Returns: the changes those lines hold, in order.
    /// - Throws: ``RemoteMessageError`` naming the line at fault.
    package mutating func feed(_ bytes: [UInt8]) throws(RemoteMessageError) -> [Change] {
        var changes: [Change] = []
        var start = 0
        let combined: [UInt8]
        if pending.isEmpty { combined = bytes } else { combined = pending + bytes }
        pending = []
        let newline = UInt8(ascii: "\n")
        var index = 0
        while index < combined.count {
            if combined[index] == newline {
                if index > start {
                    if let change = try decodeLine(combined[start..<index]) { changes.append(change) }
                }
                start = index + 1
            }
            index += 1
        }
        if start < combined.count { pending = Array(combined[start...]) }
        return changes
    }

    /// Ends the stream.
    /// - Returns: the trailer.
    /// - Throws: ``RemoteMessageError`` when the stream ended before its trailer, or with a
    ///   partial line.
    package mutating func finish() throws(RemoteMessageError) -> ChangeStreamTrailer {
        if !pending.isEmpty {
            let rest = pending
            pending = []
            if try decodeLine(rest[...]) != nil || trailer == nil {
                throw RemoteMessageError("the change stream was cut short (no end line)")
            }
        }
        guard let trailer else { throw RemoteMessageError("the change stream was cut short (no end line)") }
        guard trailer.count == changeCount else {
            throw RemoteMessageError("the change stream carried \(changeCount) changes but its end line says \(trailer.count)")
        }
        return trailer
    }

    private mutating func decodeLine(_ line: ArraySlice<UInt8>) throws(RemoteMessageError) -> Change? {
        lineNumber += 1
        guard trailer == nil else { throw RemoteMessageError("line \(lineNumber): data after the end line") }
        let value: JSONValue
        do {
            value = try line.withUnsafeBytes { (buffer) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(buffer, options: .change)
            }
        } catch {
            throw RemoteMessageError("line \(lineNumber): not JSON: \(error)")
        }
        guard case .object(let fields) = value else { throw RemoteMessageError("line \(lineNumber): not a JSON object") }
        if fields["end"] != nil {
            do { trailer = try ChangeStreamTrailer(members: fields) } catch {
                throw RemoteMessageError("line \(lineNumber): \(error.reason)")
            }
            return nil
        }
        do {
            let change = try Change(jsonFields: fields)
            changeCount += 1
            return change
        } catch {
            throw RemoteMessageError("line \(lineNumber): \(error)")
        }
    }
}
