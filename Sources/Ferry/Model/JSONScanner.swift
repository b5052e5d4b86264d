/// The engine behind ``JSONParser``: a single forward pass over UTF-8 bytes.
///
/// Containers are tracked on an explicit stack of ``Frame``s instead of by recursion, so the
/// depth of the input never touches the call stack. The elements, member values and keys of
/// every open container share three flat stacks, so parsing a document grows a few buffers
/// once instead of one per container; a container takes its contents off the top when it
/// closes. Strings and numbers live in `JSONScanner+Strings.swift` and `JSONScanner+Numbers.swift`.
struct JSONScanner {
    /// An array or object that is open while its contents are parsed.
    private struct Frame {
        let isObject: Bool
        /// Where the container's elements or member values start in ``values``.
        let valueStart: Int
        /// Where the object's keys start in ``keys``.
        let keyStart: Int
    }

    let input: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    /// The containers this input may open: ``maximumDepth`` less those around it (one for an
    /// element of a streamed array, whose errors still name the document's limit).
    private let frameLimit: Int
    /// The next byte to read.
    var offset = 0
    /// Reused buffer for strings that contain escapes.
    var scratch: [UInt8] = []
    /// The finished elements and member values of every open container, innermost last.
    private var values: [JSONValue] = []
    /// The keys of every open object, innermost last; one ahead of ``values`` while a member's
    /// value is parsed.
    private var keys: [String] = []
    /// Where each key in ``keys`` starts in the input, to report a duplicate.
    private var keyOffsets: [Int] = []

    /// - Parameter enclosingDepth: how many containers around `input` count toward
    ///   `maximumDepth` (an element cut out of an array is inside one).
    init(input: UnsafeBufferPointer<UInt8>, maximumDepth: Int, enclosingDepth: Int = 0) {
        self.input = input
        self.maximumDepth = maximumDepth
        frameLimit = maximumDepth - enclosingDepth
    }

    /// Parses the whole input as one JSON text.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if input.count >= 3, input[0] == 0xEF, input[1] == 0xBB, input[2] == 0xBF {
            throw failure("a byte order mark (BOM) is not allowed; JSON text must start with a value", at: 0)
        }
        skipWhitespace()
        if offset == input.count {
            throw failure(input.isEmpty ? "the document is empty" : "the document contains only whitespace", at: offset)
        }
        let value = try parseValueTree()
        skipWhitespace()
        if offset < input.count {
            if startsComment(at: offset) { throw failure("comments are not allowed", at: offset) }
            throw failure("unexpected data after the JSON value", at: offset)
        }
        return value
    }

    /// Parses one value, with everything nested in it, starting at `offset`.
    private mutating func parseValueTree() throws(JSONParseError) -> JSONValue {
        var frames: [Frame] = []
        nextValue: while true {
            guard offset < input.count else { throw unexpectedEnd(expecting: "a value") }
            var value: JSONValue
            switch input[offset] {
            case UInt8(ascii: "{"):
                guard frames.count < frameLimit else { throw tooDeep() }
                offset += 1
                skipWhitespace()
                if offset < input.count, input[offset] == UInt8(ascii: "}") {
                    offset += 1
                    value = .object([:])
                } else {
                    if frames.isEmpty { reserveStacks(with: &frames) }
                    frames.append(Frame(isObject: true, valueStart: values.count, keyStart: keys.count))
                    try parseKey()
                    continue nextValue
                }
            case UInt8(ascii: "["):
                guard frames.count < frameLimit else { throw tooDeep() }
                offset += 1
                skipWhitespace()
                if offset < input.count, input[offset] == UInt8(ascii: "]") {
                    offset += 1
                    value = .array([])
                } else {
                    if frames.isEmpty { reserveStacks(with: &frames) }
                    frames.append(Frame(isObject: false, valueStart: values.count, keyStart: keys.count))
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                value = .string(try parseString())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try parseNumber()
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            default:
                throw unexpectedValueStart()
            }

            // A value is complete: hand it to its container, closing as many as end here.
            while let frame = frames.last {
                values.append(consume value)
                skipWhitespace()
                let closer = frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                let expected = frame.isObject ? "',' or '}' after object member" : "',' or ']' after array element"
                guard offset < input.count else { throw unexpectedEnd(expecting: expected) }
                switch input[offset] {
                case UInt8(ascii: ","):
                    let comma = offset
                    offset += 1
                    skipWhitespace()
                    if offset < input.count, input[offset] == closer {
                        throw failure("trailing comma is not allowed", at: comma)
                    }
                    if frame.isObject { try parseKey() }
                    continue nextValue
                case closer:
                    offset += 1
                    frames.removeLast()
                    value = frame.isObject ? .object(try popMembers(of: frame)) : .array(popElements(of: frame))
                default:
                    throw unexpected(expecting: expected)
                }
            }
            return value
        }
    }

    /// Parses `value (, value)*` filling the whole input, whitespace allowed around each: a run
    /// of a top-level array's elements cut out at its commas (see ``JSONParser``'s parallel
    /// path). The input must hold at least one value.
    mutating func parseElementRun() throws(JSONParseError) -> [JSONValue] {
        var elements: [JSONValue] = []
        while true {
            skipWhitespace()
            elements.append(try parseValueTree())
            skipWhitespace()
            if offset == input.count { return elements }
            guard input[offset] == UInt8(ascii: ",") else { throw unexpected(expecting: "',' or ']' after array element") }
            offset += 1
        }
    }

    /// Parses one element of a top-level array as ``JSONArrayStream`` cuts it out: the value,
    /// then the `,` or `]` after it as the input's last byte (or the end of the document, when
    /// the input runs to it). Every error is the one a pass over the whole document reports.
    mutating func parseArrayElement() throws(JSONParseError) -> JSONValue {
        try parseDelimitedValue(closer: UInt8(ascii: "]"), expecting: "',' or ']' after array element")
    }

    /// Parses one member value of an object as ``JSONArrayStream`` cuts it out on the way to
    /// the array at a path: the value, then the `,` or `}` after it as the input's last byte.
    mutating func parseMemberValue() throws(JSONParseError) -> JSONValue {
        try parseDelimitedValue(closer: UInt8(ascii: "}"), expecting: "',' or '}' after object member")
    }

    /// A value, then `,` or `closer` as the last byte of the input (or the document's end).
    private mutating func parseDelimitedValue(closer: UInt8, expecting expected: String) throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValueTree()
        skipWhitespace()
        guard offset < input.count else { throw unexpectedEnd(expecting: expected) }
        guard offset == input.count - 1, input[offset] == UInt8(ascii: ",") || input[offset] == closer else {
            throw unexpected(expecting: expected)
        }
        return value
    }

    /// Parses an object member's key and the `:` after it (and the whitespace after that), as
    /// the parser does inside an object; returns the key.
    mutating func parseMemberKey() throws(JSONParseError) -> String {
        try parseKey()
        keyOffsets.removeLast()
        return keys.removeLast()
    }

    /// Gives the shared stacks room for a typical record before the first container opens.
    private mutating func reserveStacks(with frames: inout [Frame]) {
        frames.reserveCapacity(8)
        values.reserveCapacity(32)
        keys.reserveCapacity(32)
        keyOffsets.reserveCapacity(32)
    }

    /// Takes the elements of the array `frame` off the value stack.
    private mutating func popElements(of frame: Frame) -> [JSONValue] {
        var elements: [JSONValue] = []
        elements.reserveCapacity(values.count - frame.valueStart)
        for index in frame.valueStart..<values.count {
            elements.append(takeValue(at: index))
        }
        values.removeLast(values.count - frame.valueStart)
        return elements
    }

    /// Moves a value out of the stack, leaving a `null` that costs nothing to remove.
    private mutating func takeValue(at index: Int) -> JSONValue {
        var value = JSONValue.null
        swap(&value, &values[index])
        return value
    }

    /// Takes the members of the object `frame` off the key and value stacks, rejecting a
    /// repeated key (compared as Swift strings, as the dictionary will).
    private mutating func popMembers(of frame: Frame) throws(JSONParseError) -> [String: JSONValue] {
        var members = [String: JSONValue](minimumCapacity: keys.count - frame.keyStart)
        var valueIndex = frame.valueStart
        for keyIndex in frame.keyStart..<keys.count {
            var key = ""
            swap(&key, &keys[keyIndex])
            if members.updateValue(takeValue(at: valueIndex), forKey: key) != nil {
                var reason = "duplicate key \(quoted(key))"
                if let earlier = members.index(forKey: key), !members[earlier].key.utf8.elementsEqual(key.utf8) {
                    reason += " (Unicode-equivalent to the earlier key \(quoted(members[earlier].key)))"
                }
                throw failure(reason, at: keyOffsets[keyIndex])
            }
            valueIndex += 1
        }
        values.removeLast(values.count - frame.valueStart)
        keys.removeLast(keys.count - frame.keyStart)
        keyOffsets.removeLast(keyOffsets.count - frame.keyStart)
        return members
    }

    /// Parses `"key"` and the `:` after it onto the key stack, leaving `offset` at the value.
    private mutating func parseKey() throws(JSONParseError) {
        guard offset < input.count else { throw unexpectedEnd(expecting: "a string key") }
        let start = offset
        switch input[offset] {
        case UInt8(ascii: "\""):
            break
        case UInt8(ascii: "'"):
            throw failure("strings must be in double quotes, not single quotes", at: start)
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "_"), UInt8(ascii: "$"):
            throw failure("object keys must be strings in double quotes", at: start)
        default:
            throw unexpected(expecting: "a string key")
        }
        keys.append(try parseString())
        keyOffsets.append(start)
        skipWhitespace()
        guard offset < input.count else { throw unexpectedEnd(expecting: "':' after object key") }
        guard input[offset] == UInt8(ascii: ":") else { throw unexpected(expecting: "':' after object key") }
        offset += 1
        skipWhitespace()
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let matches = literal.withUTF8Buffer { expected in
            offset + count <= input.count && (0..<count).allSatisfy { input[offset + $0] == expected[$0] }
        }
        guard matches else { throw failure("invalid literal; expected '\(literal)'", at: offset) }
        offset += count
    }

    /// Skips JSON whitespace: space, tab, line feed and carriage return.
    mutating func skipWhitespace() {
        while offset < input.count {
            switch input[offset] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                offset += 1
            default:
                return
            }
        }
    }
}

// MARK: - Errors

extension JSONScanner {
    /// An error at `offset`, with its line and column.
    func failure(_ reason: String, at offset: Int) -> JSONParseError {
        JSONParseError(reason, at: offset, in: input)
    }

    func unexpectedEnd(expecting expected: String) -> JSONParseError {
        failure("unexpected end of input; expected \(expected)", at: offset)
    }

    /// An error for the byte at `offset`, which is not the `expected` thing.
    func unexpected(expecting expected: String) -> JSONParseError {
        if startsComment(at: offset) { return failure("comments are not allowed", at: offset) }
        return failure("expected \(expected), found \(describeByte(at: offset))", at: offset)
    }

    /// An error for a byte that cannot start a value, naming the common mistakes.
    func unexpectedValueStart() -> JSONParseError {
        let byte = input[offset]
        if startsComment(at: offset) { return failure("comments are not allowed", at: offset) }
        if has(prefix: "NaN", at: offset) { return failure("NaN is not valid JSON", at: offset) }
        if has(prefix: "Infinity", at: offset) { return failure("Infinity is not valid JSON", at: offset) }
        switch byte {
        case UInt8(ascii: "+"):
            return failure("a leading '+' is not allowed in numbers", at: offset)
        case UInt8(ascii: "."):
            return failure("a number must start with a digit, not '.'", at: offset)
        case UInt8(ascii: "'"):
            return failure("strings must be in double quotes, not single quotes", at: offset)
        case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ":"):
            return failure("unexpected '\(Character(Unicode.Scalar(byte)))'; expected a value", at: offset)
        default:
            return failure("expected a value, found \(describeByte(at: offset))", at: offset)
        }
    }

    func tooDeep() -> JSONParseError {
        failure("nesting deeper than \(maximumDepth) levels", at: offset)
    }

    /// `'x'` for printable ASCII, `byte 0xff` for anything else.
    func describeByte(at offset: Int) -> String {
        let byte = input[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(Self.hex(byte))"
    }

    func startsComment(at offset: Int) -> Bool {
        offset + 1 < input.count && input[offset] == UInt8(ascii: "/")
            && (input[offset + 1] == UInt8(ascii: "/") || input[offset + 1] == UInt8(ascii: "*"))
    }

    func has(prefix: StaticString, at offset: Int) -> Bool {
        prefix.withUTF8Buffer { expected in
            offset + expected.count <= input.count
                && expected.indices.allSatisfy { input[offset + $0] == expected[$0] }
        }
    }
}

extension JSONScanner {
    /// Two lowercase hex digits: `0f`.
    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
}
