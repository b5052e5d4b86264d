/// Writes a JSON array in the pretty form one element at a time, so a long array (an export
/// of a million records) is never held whole: the bytes are those of
/// `JSONValue.array(elements).prettyBytes()`.
///
/// ```swift
/// var writer = PrettyJSONArrayWriter()
/// for record in records { output.write(writer.bytes(appending: record)) }
/// output.write(writer.closingBytes())
/// ```
public struct PrettyJSONArrayWriter: Sendable {
    private var count = 0

    public init() {}

    /// Elements written so far.
    public var elementCount: Int { count }

    /// The bytes that add `element` to the array (its opening bracket first).
    public mutating func bytes(appending element: JSONValue) -> [UInt8] {
        var output: [UInt8] = Array(count == 0 ? "[\n  ".utf8 : ",\n  ".utf8)
        JSONWriter.writePretty(element, depth: 1, to: &output)
        count += 1
        return output
    }

    /// The bytes that end the array, with the final newline (`[]` and a newline when empty).
    public func closingBytes() -> [UInt8] {
        Array((count == 0 ? "[]\n" : "\n]\n").utf8)
    }
}
