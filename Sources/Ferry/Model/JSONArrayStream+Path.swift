/// Reading an array that sits inside objects, as APIs wrap their lists:
/// `{"data": [...], "meta": {...}}` read at the path `["data"]`.
///
/// The members before the array are read and checked one at a time (each held to
/// ``JSONArrayStream/Options/maximumElementBytes``), the array's elements are handed out as for
/// a top-level array, and once it closes the members after it are read and checked the same
/// way, up to the end of the document. The stream accepts what ``JSONParser`` accepts of the
/// whole document and reports its errors (repeated keys included, when their object closes),
/// so a caller that checks the whole stream before acting on it behaves as if it had parsed
/// the document whole.
extension JSONArrayStream {
    /// One object around the array, and the keys read in it so far.
    struct EnclosingObject {
        /// Every key read in the object, compared as Swift strings as the parser does.
        var keys: Set<String> = []
        /// The first key that repeats an earlier one, thrown when the object closes (where the
        /// parser finds it).
        var duplicate: JSONParseError?
    }

    /// Reads up to the array at `path`, a chain of object members from the top (`["data"]`,
    /// `["response", "items"]`): `true` when there is one there, whose elements
    /// ``nextElements(upTo:)`` then returns; `false` when the path leads elsewhere (a missing
    /// member, a value of another kind) or a member before the array is larger than the element
    /// limit, which a caller leaves to a reader of the whole document. An empty path is
    /// ``openArray()``.
    /// - Throws: ``Failure/invalidJSON(_:)`` for the first problem met in the document's order
    ///   before the array; ``Failure/io(_:)``.
    public mutating func openArray(at path: [String]) throws(Failure) -> Bool {
        guard !path.isEmpty else { return try openArray() }
        guard case .start = phase else { return true }
        guard path.count < options.maximumDepth else { return false }
        try openDocument()
        for key in path {
            try skipWhitespace()
            guard position < buffer.count, buffer[position] == UInt8(ascii: "{") else { return false }
            position += 1
            enclosingObjects.append(EnclosingObject())
            try skipWhitespace()
            guard position < buffer.count, buffer[position] != UInt8(ascii: "}") else { return false }
            while true {
                guard let name = try readKey() else { return false }
                if name == key { break }
                guard let closed = try skipMemberValue() else { return false }
                if closed { return false }
                try skipWhitespaceAfterComma()
            }
        }
        try skipWhitespace()
        guard position < buffer.count, buffer[position] == UInt8(ascii: "[") else { return false }
        position += 1
        phase = .beforeElement(afterComma: false)
        return true
    }

    /// After the array's `]`: reads and checks the rest of every object around it, innermost
    /// first, throwing a repeated key of an object when it closes.
    mutating func closeEnclosingObjects() throws(Failure) {
        let expected = "',' or '}' after object member"
        while !enclosingObjects.isEmpty {
            try skipWhitespace()
            try fill(toAtLeast: position + 2)
            guard position < buffer.count else {
                throw failure("unexpected end of input; expected \(expected)", at: position)
            }
            switch buffer[position] {
            case UInt8(ascii: "}"):
                position += 1
                try closeInnermostObject()
            case UInt8(ascii: ","):
                position += 1
                try skipWhitespaceAfterComma()
                while true {
                    guard try readKey() != nil else {
                        throw failure("an object key is larger than the limit of \(options.maximumElementBytes) bytes", at: position)
                    }
                    guard let closed = try skipMemberValue() else {
                        throw failure(
                            "an object member after the array is larger than the limit of \(options.maximumElementBytes) bytes",
                            at: position)
                    }
                    if closed { break }
                    try skipWhitespaceAfterComma()
                }
                try closeInnermostObject()
            default:
                throw scannerError(at: position) { $0.unexpected(expecting: expected) }
            }
        }
    }

    // MARK: Members

    /// Removes the innermost object, which has just closed, throwing its repeated key if any.
    private mutating func closeInnermostObject() throws(Failure) {
        if let duplicate = enclosingObjects.removeLast().duplicate { throw .invalidJSON(duplicate) }
    }

    /// After a member's `,`: skips whitespace, and refuses a `}` as the parser does.
    private mutating func skipWhitespaceAfterComma() throws(Failure) {
        var comma = position - 1
        comma -= try skipWhitespace(keepingFrom: comma) ?? 0
        try fill(toAtLeast: position + 1)
        if position < buffer.count, buffer[position] == UInt8(ascii: "}") {
            throw failure("trailing comma is not allowed", at: comma)
        }
    }

    /// Reads the key at ``position``, the `:` and the whitespace after it, noting a repeat in
    /// the innermost object; `nil` when the key is larger than the element limit.
    private mutating func readKey() throws(Failure) -> String? {
        // The whole key, the byte after it and one more (to tell a comment) must be in view.
        while !sourceIsExhausted {
            if let end = keyEnd(), end + 2 <= buffer.count { break }
            guard buffer.count - position <= options.maximumElementBytes else { return nil }
            position -= dropBytes(before: position)
            try readChunk(upTo: options.chunkBytes)
        }
        let start = position
        let depth = options.maximumDepth
        let parsed = buffer.withUnsafeBufferPointer { bytes in
            Result { () throws(JSONParseError) -> (String, Int) in
                var scanner = JSONScanner(input: UnsafeBufferPointer(rebasing: bytes[start...]), maximumDepth: depth)
                let key = try scanner.parseMemberKey()
                return (key, scanner.offset)
            }
        }
        let key: String
        switch parsed {
        case .failure(let error): throw .invalidJSON(relocated(error, from: start))
        case .success(let (name, length)):
            key = name
            position = start + length
        }
        let level = enclosingObjects.count - 1
        let (isNew, earlier) = enclosingObjects[level].keys.insert(key)
        if !isNew, enclosingObjects[level].duplicate == nil {
            var reason = "duplicate key \(quoted(key))"
            if !earlier.utf8.elementsEqual(key.utf8) {
                reason += " (Unicode-equivalent to the earlier key \(quoted(earlier)))"
            }
            if case .invalidJSON(let error) = failure(reason, at: start) { enclosingObjects[level].duplicate = error }
        }
        return key
    }

    /// Where the key at ``position`` ends in the window: the first byte after it and the
    /// whitespace that follows (where the `:` should be); ``position`` itself when no string
    /// starts there; `nil` when the window ends first.
    private func keyEnd() -> Int? {
        guard position < buffer.count else { return nil }
        guard buffer[position] == UInt8(ascii: "\"") else { return position }
        var offset = position + 1
        var escaped = false
        while offset < buffer.count {
            let byte = buffer[offset]
            offset += 1
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                while offset < buffer.count, [0x20, 0x0A, 0x0D, 0x09].contains(buffer[offset]) { offset += 1 }
                return offset < buffer.count ? offset : nil
            }
        }
        return nil
    }

    /// Reads and checks the member value at ``position`` and the `,` or `}` after it: `true`
    /// when `}` closed the object, `false` after a `,`; `nil` when the value is larger than the
    /// element limit (``position`` is then the value's start).
    private mutating func skipMemberValue() throws(Failure) -> Bool? {
        var start = position
        var cut = Cut(offset: start)
        var isDelimited = false
        while true {
            if advance(&cut, closer: UInt8(ascii: "}")) != nil {
                isDelimited = true
                break
            }
            guard cut.offset - start <= options.maximumElementBytes else {
                position = start
                return nil
            }
            if sourceIsExhausted { break }  // the document ends inside the value: its parse fails
            let shift = dropBytes(before: start)
            start -= shift
            cut.offset -= shift
            try readChunk(upTo: options.chunkBytes)
        }
        let end = cut.offset  // after the `,` or `}`, or the end of the document
        let depth = options.maximumDepth
        let enclosing = enclosingObjects.count
        let parsed = buffer.withUnsafeBufferPointer { bytes in
            Result { () throws(JSONParseError) in
                var scanner = JSONScanner(
                    input: UnsafeBufferPointer(rebasing: bytes[start..<end]), maximumDepth: depth, enclosingDepth: enclosing)
                _ = try scanner.parseMemberValue()
            }
        }
        if case .failure(let error) = parsed { throw .invalidJSON(relocated(error, from: start)) }
        guard isDelimited else { throw failure("unexpected end of input", at: end) }  // the parse fails first
        position = end
        return buffer[end - 1] == UInt8(ascii: "}")
    }

    /// An error a scanner makes at `offset` of the window, at its place in the document.
    private func scannerError(at offset: Int, _ make: (JSONScanner) -> JSONParseError) -> Failure {
        let error = buffer.withUnsafeBufferPointer { bytes in
            make(JSONScanner(input: UnsafeBufferPointer(rebasing: bytes[offset...]), maximumDepth: options.maximumDepth))
        }
        return .invalidJSON(relocated(error, from: offset))
    }
}
