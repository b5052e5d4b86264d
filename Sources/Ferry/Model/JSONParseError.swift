/// Why ``JSONParser`` rejected a document, and where.
///
/// `line` and `column` are 1-based. Lines end at `\n` (so `\r\n` counts as one line break).
/// The column counts Unicode scalars (code points) from the start of the line, not bytes and
/// not grapheme clusters: in `{"é": x}` the `x` is column 7, though `é` takes two bytes.
/// A byte that is not valid UTF-8 counts as one column.
///
/// The position is that of the offending byte: the duplicate key, the stray comma, the first
/// byte of the number that overflows, the backslash of a bad escape.
///
/// ```swift
/// do {
///     _ = try JSONParser.parse("{\"a\": 1,}")
/// } catch {
///     print(error) // line 1, column 8: trailing comma is not allowed
/// }
/// ```
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line of the problem.
    public let line: Int
    /// The 1-based column of the problem, in Unicode scalars from the start of the line.
    public let column: Int
    /// What is wrong, in a short lowercase phrase such as `duplicate key "name"`.
    public let reason: String

    /// Makes an error at a position.
    /// - Parameters:
    ///   - line: The 1-based line.
    ///   - column: The 1-based column, in Unicode scalars.
    ///   - reason: What is wrong.
    public init(line: Int, column: Int, reason: String) {
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// `line 3, column 7: expected ',' or '}' after object member`.
    public var description: String {
        "line \(line), column \(column): \(reason)"
    }
}

extension JSONParseError {
    /// Makes an error for the byte at `offset` of `input`, working out its line and column.
    ///
    /// Only called on failure, so the scan from the start of the input costs nothing on the
    /// happy path.
    init(_ reason: String, at offset: Int, in input: UnsafeBufferPointer<UInt8>) {
        let offset = min(max(offset, 0), input.count)
        var line = 1
        var lineStart = 0
        for index in 0..<offset where input[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        var column = 1
        for index in lineStart..<offset where input[index] & 0xC0 != 0x80 {
            column += 1
        }
        self.init(line: line, column: column, reason: reason)
    }
}
