/// Ferry's strict JSON parser (RFC 8259), the trust boundary for journal lines, peer batches
/// and imported documents.
///
/// The parser accepts exactly the JSON grammar and nothing more. It rejects trailing commas,
/// comments, `NaN` and `Infinity`, leading zeros and a leading `+`, unpaired UTF-16 surrogate
/// escapes, invalid UTF-8, unescaped control characters in strings, duplicate object keys,
/// a byte order mark, anything but whitespace after the value, nesting deeper than
/// ``Options/maximumDepth`` and documents larger than ``Options/maximumByteCount``.
///
/// Numbers written without a fraction or exponent that fit in `Int64` become
/// ``JSONValue/integer(_:)`` exactly; every other number is read as the nearest `Double`, and
/// becomes an integer if that double is integral and fits in `Int64` (`2.0`, `1e18`; this goes
/// beyond ``JSONValue/number(_:)``'s ±2^53 so that parse → canonical → parse is the identity),
/// else ``JSONValue/double(_:)``. A number too large for a `Double` is an error; one too small
/// becomes zero.
///
/// Object keys are compared as Swift strings, so two keys that are canonically equivalent
/// Unicode (`"é"` and `"e\u0301"`) are reported as duplicates: ``JSONValue`` could not hold both.
/// Duplicates are found when their object closes (each key is hashed once, into the finished
/// dictionary), so a syntax error later inside the same object is reported first.
///
/// Nesting is handled with an explicit stack rather than recursion, so hostile input such as
/// 100,000 `[` is rejected with an error at the first level past the limit and never exhausts
/// the call stack.
///
/// A top-level array of a megabyte or more (an API response to import, a sync batch) is parsed
/// on every core; what it accepts, and every error it reports, are those of the single pass.
///
/// ```swift
/// let value = try JSONParser.parse(#"{"name": "Lamp", "price": 12.5}"#)
/// value["price"] // .double(12.5)
///
/// // Journal replay parses each line in place, without copying it:
/// let entry = try line.withUnsafeBytes { try JSONParser.parse($0) }
/// ```
public struct JSONParser {
    /// Limits that protect the parser from hostile input.
    public struct Options: Sendable {
        /// The deepest nesting of arrays and objects accepted; `[[1]]` has depth 2.
        public var maximumDepth: Int = 512
        /// The largest document accepted, in bytes.
        public var maximumByteCount: Int = 16 * 1024 * 1024

        /// Makes options.
        /// - Parameters:
        ///   - maximumDepth: The deepest nesting of arrays and objects accepted. Values nested
        ///     much deeper than the default are slow to compare, hash and free, because
        ///     ``JSONValue`` does those recursively.
        ///   - maximumByteCount: The largest document accepted, in bytes.
        public init(maximumDepth: Int = 512, maximumByteCount: Int = 16 << 20) {
            self.maximumDepth = maximumDepth
            self.maximumByteCount = maximumByteCount
        }
    }

    /// Parses the UTF-8 bytes of a JSON document.
    ///
    /// ```swift
    /// let value = try JSONParser.parse(Array(#"[1, 2.5, "x"]"#.utf8))
    /// ```
    /// - Parameters:
    ///   - bytes: The document, UTF-8 encoded, without a byte order mark.
    ///   - options: Limits on depth and size.
    /// - Returns: The document's value.
    /// - Throws: ``JSONParseError`` naming the first problem and its line and column.
    public static func parse(_ bytes: [UInt8], options: Options = Options()) throws(JSONParseError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) in try parse(typed: buffer, options: options) }
        }
        return try result.get()
    }

    /// Parses a JSON document held in raw memory: the core that the other overloads call.
    ///
    /// The bytes are only read during the call; the returned value owns copies of its strings.
    ///
    /// ```swift
    /// let value = try data.withUnsafeBytes { try JSONParser.parse($0) }
    /// ```
    /// - Parameters:
    ///   - bytes: The document, UTF-8 encoded, without a byte order mark.
    ///   - options: Limits on depth and size.
    /// - Returns: The document's value.
    /// - Throws: ``JSONParseError`` naming the first problem and its line and column.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer, options: Options = Options()
    ) throws(JSONParseError) -> JSONValue {
        let result = bytes.withMemoryRebound(to: UInt8.self) { buffer in
            Result { () throws(JSONParseError) in try parse(typed: buffer, options: options) }
        }
        return try result.get()
    }

    /// Parses a JSON document held in a string.
    ///
    /// ```swift
    /// let value = try JSONParser.parse("[true, null]")
    /// ```
    /// - Parameters:
    ///   - text: The document.
    ///   - options: Limits on depth and size (measured in UTF-8 bytes).
    /// - Returns: The document's value.
    /// - Throws: ``JSONParseError`` naming the first problem and its line and column.
    public static func parse(_ text: String, options: Options = Options()) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONParseError) in try parse(typed: buffer, options: options) }
        }
        return try result.get()
    }

    static func parse(typed bytes: UnsafeBufferPointer<UInt8>, options: Options) throws(JSONParseError) -> JSONValue {
        guard bytes.count <= options.maximumByteCount else {
            throw JSONParseError(
                line: 1, column: 1,
                reason: "document is \(bytes.count) bytes; the limit is \(options.maximumByteCount)")
        }
        if let array = parseArrayInParallel(bytes, options: options) { return array }
        var scanner = JSONScanner(input: bytes, maximumDepth: options.maximumDepth)
        return try scanner.parseDocument()
    }
}
