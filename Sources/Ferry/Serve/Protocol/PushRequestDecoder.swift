/// Reads a push body (`{"changes":[…],"maximumSkew":…}`) as its bytes arrive: each change is
/// parsed and checked as soon as its last byte is here, and its bytes are dropped, so a server
/// never holds a whole body, and a body that goes wrong is refused at the first bad change
/// rather than after the last byte.
///
/// ```swift
/// var decoder = PushRequestDecoder()
/// for piece in pieces { try decoder.feed(piece) }
/// let push = try decoder.finish()      // throws if the body ended early
/// ```
///
/// The decoder scans the body's outer structure itself (the object, its members, the array of
/// changes) and hands each change, and each other member's value, to ``JSONParser``, so nesting
/// is bounded by the parser's limit and the scan never recurses. Errors name the member at
/// fault, as ``PushRequest/init(body:)`` always has: `changes[3].hlc: must be …`.
package struct PushRequestDecoder: Sendable {
    /// Where the scan is in the body's outer structure.
    private enum Place: Sendable {
        case beforeObject
        case beforeKey(first: Bool)
        case inKey
        case beforeColon
        case beforeValue
        case beforeChanges
        case beforeChange(first: Bool)
        case inChange
        case afterChange
        case inValue
        case afterValue
        case afterObject
    }

    /// The longest value of a member other than `changes` (a number, in version 1).
    static let maximumMemberBytes = 4096

    private var place = Place.beforeObject
    /// The bytes of the key, change or member value being read.
    private var token: [UInt8] = []
    /// Inside `token`: open arrays and objects, and whether a string is open.
    private var nesting = 0
    private var inString = false
    private var escaped = false
    private var key = ""
    private var seenKeys: Set<String> = []
    private var sawChanges = false
    private var changes: [Change] = []
    private var maximumSkew: UInt64?
    /// Body bytes read so far, for error positions.
    private var offset = 0
    /// What the parsed changes hold in memory, roughly (see ``retainedBytes``).
    private var parsedBytes = 0
    /// Values begun in the change being read so far (objects, arrays, members, elements): what
    /// its parse will cost beyond its bytes, known before it is parsed.
    private var pendingNodes = 0
    /// The most bytes one change may take encoded: a document of the store's limit, and room
    /// for the rest of the change.
    private let maximumChangeBytes: Int
    /// The largest document a change may carry, canonically encoded.
    private let maximumDocumentBytes: Int

    /// Makes a decoder at the start of a body.
    /// - Parameter maximumDocumentBytes: the largest document a change may carry (the store's
    ///   limit); a change is refused as soon as its bytes pass it, before it is parsed.
    package init(maximumDocumentBytes: Int = StoreOptions().maximumDocumentBytes) {
        self.maximumDocumentBytes = maximumDocumentBytes
        self.maximumChangeBytes = maximumDocumentBytes + Self.changeOverheadBytes
    }

    /// What a change may take beyond its document: its stamps, ids, digests and version vector.
    static let changeOverheadBytes = 1 << 20

    /// What one parsed value costs beyond its bytes (a tree node, a dictionary slot), with a
    /// margin: `{"a":[{"":0},{"":0},…]}` takes 15 to 30 times its encoded size once parsed.
    static let bytesPerParsedValue = 80

    /// Roughly the memory the decoder holds: the change being read and what its parse will
    /// take (counted as its bytes are scanned, so before it is parsed), and the changes parsed
    /// so far. A server counts it against its body budget as the bytes arrive.
    package var retainedBytes: Int { token.capacity + pendingNodes * Self.bytesPerParsedValue + parsedBytes }

    /// The changes parsed so far.
    package var changeCount: Int { changes.count }

    /// Reads the next bytes of the body.
    /// - Throws: ``RemoteMessageError`` at the first byte or change that cannot be right.
    package mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(RemoteMessageError) {
        var index = 0
        while index < bytes.count {
            if case .inChange = place, nesting > 0 || inString {
                // Inside a change: a tight scan to its end (or the end of these bytes).
                let (end, complete) = scanChange(bytes, from: index)
                offset += end - index
                index = end
                try checkChangeSize()
                if complete { try finishChange() }
                continue
            }
            try step(bytes[index])
            offset += 1
            index += 1
        }
    }

    /// Reads the next bytes of the body.
    package mutating func feed(_ bytes: [UInt8]) throws(RemoteMessageError) {
        let failure = bytes.withUnsafeBytes { buffer -> RemoteMessageError? in
            do throws(RemoteMessageError) { try feed(buffer) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Adds the bytes of the change being read from `start` on, up to and including the byte
    /// that closes it; returns where it stopped and whether the change is complete.
    private mutating func scanChange(_ bytes: UnsafeRawBufferPointer, from start: Int) -> (Int, Bool) {
        var index = start
        var complete = false
        while index < bytes.count && !complete {
            complete = track(bytes[index])
            index += 1
        }
        token.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        return (index, complete)
    }

    /// Refuses the change being read once its bytes pass what a change may take, before the
    /// rest of it arrives and before it is parsed.
    private func checkChangeSize() throws(RemoteMessageError) {
        guard token.count > maximumChangeBytes else { return }
        throw RemoteMessageError(
            "changes[\(changes.count)]: larger than a change may be (a document of at most \(maximumDocumentBytes) bytes); "
                + "the rest of the push was not read")
    }

    /// Ends the body.
    /// - Returns: the push it held.
    /// - Throws: ``RemoteMessageError`` when the body ended before its object closed, or has no
    ///   `changes`.
    package mutating func finish() throws(RemoteMessageError) -> PushRequest {
        guard case .afterObject = place else {
            if case .beforeObject = place { throw RemoteMessageError("the push body is not JSON: it is empty") }
            throw RemoteMessageError("the push body is not JSON: it ends early, at byte \(offset)")
        }
        guard sawChanges else { throw RemoteMessageError("changes: must be an array of changes") }
        let push = PushRequest(changes: changes, maximumSkew: maximumSkew)
        changes = []
        parsedBytes = 0
        return push
    }

    // MARK: - Scanning

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Bytes that end or separate values, which cannot start one.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: ":")
    }

    private func unexpected(_ byte: UInt8, expecting what: String) -> RemoteMessageError {
        let shown = byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
        return RemoteMessageError("the push body is not JSON: \(shown) at byte \(offset) where \(what) should be")
    }

    private mutating func step(_ byte: UInt8) throws(RemoteMessageError) {
        switch place {
        case .beforeObject:
            if Self.isSpace(byte) { return }
            guard byte == UInt8(ascii: "{") else {
                if byte == UInt8(ascii: "[") { throw RemoteMessageError("the push body must be a JSON object, not an array") }
                throw unexpected(byte, expecting: "'{'")
            }
            place = .beforeKey(first: true)

        case .beforeKey(let first):
            if Self.isSpace(byte) { return }
            if first && byte == UInt8(ascii: "}") { place = .afterObject; return }
            guard byte == UInt8(ascii: "\"") else { throw unexpected(byte, expecting: "a member name") }
            startToken(byte)
            place = .inKey

        case .inKey:
            try append(byte, limit: Self.maximumMemberBytes, what: "a member name")
            guard track(byte) else { return }
            key = try Self.decodeKey(token)
            token = []
            guard seenKeys.insert(key).inserted else {
                throw RemoteMessageError("the push body has the member \(quoted(key)) twice")
            }
            guard key == "changes" || key == "maximumSkew" else {
                throw RemoteMessageError("the push body has an unknown member \(quoted(key))")
            }
            place = .beforeColon

        case .beforeColon:
            if Self.isSpace(byte) { return }
            guard byte == UInt8(ascii: ":") else { throw unexpected(byte, expecting: "':'") }
            place = key == "changes" ? .beforeChanges : .beforeValue

        case .beforeChanges:
            if Self.isSpace(byte) { return }
            guard byte == UInt8(ascii: "[") else { throw RemoteMessageError("changes: must be an array of changes") }
            sawChanges = true
            place = .beforeChange(first: true)

        case .beforeChange(let first):
            if Self.isSpace(byte) { return }
            if first && byte == UInt8(ascii: "]") { place = .afterValue; return }
            guard !Self.isDelimiter(byte) else { throw unexpected(byte, expecting: "a change") }
            guard changes.count < RemoteProtocol.maximumPushChanges else {
                throw RemoteMessageError("changes: at most \(RemoteProtocol.maximumPushChanges) changes per push")
            }
            startToken(byte)
            place = .inChange

        case .inChange:
            if nesting == 0 && !inString && (byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || Self.isSpace(byte)) {
                // A scalar element ends at its delimiter, which then belongs to what follows.
                try finishChange()
                try step(byte)
                return
            }
            token.append(byte)
            if track(byte) { try finishChange() }

        case .afterChange:
            if Self.isSpace(byte) { return }
            if byte == UInt8(ascii: ",") { place = .beforeChange(first: false); return }
            guard byte == UInt8(ascii: "]") else { throw unexpected(byte, expecting: "',' or ']'") }
            place = .afterValue

        case .beforeValue:
            if Self.isSpace(byte) { return }
            guard !Self.isDelimiter(byte) else { throw unexpected(byte, expecting: "a value") }
            startToken(byte)
            place = .inValue

        case .inValue:
            if nesting == 0 && !inString && (byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || Self.isSpace(byte)) {
                try finishValue()
                try step(byte)
                return
            }
            try append(byte, limit: Self.maximumMemberBytes, what: "the value of \(quoted(key))")
            if track(byte) { try finishValue() }

        case .afterValue:
            if Self.isSpace(byte) { return }
            if byte == UInt8(ascii: ",") { place = .beforeKey(first: false); return }
            guard byte == UInt8(ascii: "}") else { throw unexpected(byte, expecting: "',' or '}'") }
            place = .afterObject

        case .afterObject:
            guard Self.isSpace(byte) else { throw unexpected(byte, expecting: "nothing more") }
        }
    }

    /// Starts a token with its first byte (which never completes it: the callers refuse a
    /// delimiter there).
    private mutating func startToken(_ byte: UInt8) {
        token = [byte]
        pendingNodes = 0
        nesting = 0
        inString = false
        escaped = false
        _ = track(byte)
    }

    /// Follows the token's structure (strings, escapes, nesting) past `byte`, its latest byte;
    /// true when the token is complete: its outer string, array or object has just closed. A
    /// scalar is complete only at the delimiter after it, which the caller sees.
    private mutating func track(_ byte: UInt8) -> Bool {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
                return nesting == 0
            }
            return false
        }
        switch byte {
        case UInt8(ascii: "\""):
            inString = true
        case UInt8(ascii: ","), UInt8(ascii: ":"):
            pendingNodes += 1
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            pendingNodes += 1
            nesting += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            nesting -= 1
            return nesting <= 0
        default:
            break
        }
        return false
    }

    private mutating func append(_ byte: UInt8, limit: Int, what: String) throws(RemoteMessageError) {
        guard token.count < limit else { throw RemoteMessageError("the push body has \(what) longer than \(limit) bytes") }
        token.append(byte)
    }

    private static let parserOptions = JSONParser.Options.change

    private static func decodeKey(_ bytes: [UInt8]) throws(RemoteMessageError) -> String {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: parserOptions) } catch {
            throw RemoteMessageError("the push body is not JSON: a member name: \(error)")
        }
        guard case .string(let key) = value else {
            throw RemoteMessageError("the push body has a member name that is not a string")
        }
        return key
    }

    /// Parses and checks the change just read.
    private mutating func finishChange() throws(RemoteMessageError) {
        let index = changes.count
        let bytes = token
        let nodes = pendingNodes
        token = []
        pendingNodes = 0
        place = .afterChange
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: Self.parserOptions) } catch {
            throw RemoteMessageError("changes[\(index)]: not JSON: \(error)")
        }
        guard case .object(let fields) = value else {
            throw RemoteMessageError("changes[\(index)]: must be an object, not \(value.kindName)")
        }
        if let unknown = fields.keys.sorted().first(where: { !Change.jsonFieldNames.contains($0) }) {
            throw RemoteMessageError("changes[\(index)]: unknown member \(quoted(unknown))")
        }
        let change: Change
        do { change = try Change(jsonFields: fields) } catch {
            throw RemoteMessageError("changes[\(index)].\(error.field ?? "")\(error.field == nil ? "" : ": ")\(error.reason)")
        }
        guard change.chain != nil else {
            throw RemoteMessageError("changes[\(index)].digest: every pushed change carries \"digest\" and \"parent\"")
        }
        // Checked now, not after the whole body: a change over the limit or altered since it
        // was made stops the push at its last byte.
        if let chain = change.chain {
            var canonical: [UInt8]?
            if let document = change.operation.document {
                var encoded: [UInt8] = []
                document.writeCanonical(to: &encoded)
                guard encoded.count <= maximumDocumentBytes else {
                    throw RemoteMessageError(
                        "changes[\(index)].doc: \(encoded.count) bytes, over the \(maximumDocumentBytes) a document may take")
                }
                canonical = encoded
            }
            guard ChangeChain.digest(of: change, parent: chain.parent, canonicalDocument: canonical) == chain.digest else {
                throw RemoteMessageError(
                    "changes[\(index)] does not match its digest: it was altered after it was made; the rest of the push was not read",
                    isRefusedClaim: true)
            }
        }
        changes.append(change)
        parsedBytes += Self.parsedSize(ofEncoded: bytes.count, values: nodes)
    }

    /// Parses and checks the value of the member just read (`maximumSkew`).
    private mutating func finishValue() throws(RemoteMessageError) {
        let bytes = token
        token = []
        place = .afterValue
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: Self.parserOptions) } catch {
            throw RemoteMessageError("\(key): not JSON: \(error)")
        }
        maximumSkew = try RemoteMessageError.count([key: value], key)
    }

    /// What a parsed change of `count` encoded bytes holds in memory, with a margin: its
    /// document as a tree of values, its version vector, stamps and digests. Measured on Linux,
    /// changes of about 530 encoded bytes take about 1,230 bytes each once parsed (2.3 times).
    /// - Parameter values: the values begun in it (see ``bytesPerParsedValue``).
    static func parsedSize(ofEncoded count: Int, values: Int = 0) -> Int {
        2 * count + 640 + values * bytesPerParsedValue
    }
}
