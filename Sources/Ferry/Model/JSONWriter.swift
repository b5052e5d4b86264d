/// Writes ``JSONValue``s as UTF-8 bytes, in the canonical form or pretty-printed.
///
/// The public entry points are ``JSONValue/canonicalBytes()`` and friends; see
/// ``JSONValue/writeCanonical(to:)`` for the exact canonical rules. Numbers are formatted in
/// `JSONWriter+Numbers.swift`.
enum JSONWriter {
    /// Appends the compact canonical form of `value`.
    static func writeCanonical(_ value: JSONValue, to output: inout [UInt8]) {
        switch value {
        case .null:
            append("null", to: &output)
        case .bool(let bool):
            append(bool ? "true" : "false", to: &output)
        case .integer(let integer):
            writeInteger(integer, to: &output)
        case .double(let double):
            writeDouble(double, to: &output)
        case .string(let string):
            writeString(string, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeCanonical(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            forEachMemberInOrder(members) { position, key, value in
                if position > 0 { output.append(UInt8(ascii: ",")) }
                writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                writeCanonical(value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `value` indented by two spaces per level, as `JSON.stringify(value, null, 2)`
    /// would with sorted keys; `depth` is the level of `value` itself.
    static func writePretty(_ value: JSONValue, depth: Int, to output: inout [UInt8]) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth: depth + 1, to: &output)
                writePretty(element, depth: depth + 1, to: &output)
            }
            newline(depth: depth, to: &output)
            output.append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            output.append(UInt8(ascii: "{"))
            forEachMemberInOrder(members) { position, key, value in
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth: depth + 1, to: &output)
                writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                output.append(UInt8(ascii: " "))
                writePretty(value, depth: depth + 1, to: &output)
            }
            newline(depth: depth, to: &output)
            output.append(UInt8(ascii: "}"))
        default:
            writeCanonical(value, to: &output)
        }
    }

    /// The pretty form (``writePretty(_:depth:to:)`` plus a final newline) of a value given
    /// by its canonical bytes, re-spaced byte by byte: no value is rebuilt and no keys are
    /// sorted again, which makes a record file's bytes several times cheaper when the
    /// canonical form is already at hand.
    /// - Precondition: `canonical` is the output of ``writeCanonical(_:to:)``.
    static func prettyBytes(fromCanonical canonical: [UInt8]) -> [UInt8] {
        canonical.withUnsafeBufferPointer { input -> [UInt8] in
            // Two passes over the bytes, one to size the output and one to fill it: cheaper
            // than growing an array a byte at a time.
            let size = respace(input, into: nil)
            return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                count = respace(input, into: buffer.baseAddress)
            }
        }
    }

    /// Writes the pretty form of canonical `input` to `output` (when given; it must have room)
    /// and returns its length.
    private static func respace(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>?) -> Int {
        var written = 0
        @inline(__always) func put(_ byte: UInt8) {
            output?[written] = byte
            written += 1
        }
        @inline(__always) func newline(depth: Int) {
            put(UInt8(ascii: "\n"))
            let spaces = 2 * depth
            if let output { (output + written).initialize(repeating: UInt8(ascii: " "), count: spaces) }
            written += spaces
        }
        var depth = 0
        var position = 0
        let count = input.count
        while position < count {
            let byte = input[position]
            switch byte {
            case UInt8(ascii: "\""):
                // A string, escapes and all, as it is.
                let start = position
                position += 1
                while position < count {
                    let character = input[position]
                    if character == UInt8(ascii: "\\") {
                        position += 2
                    } else {
                        position += 1
                        if character == UInt8(ascii: "\"") { break }
                    }
                }
                let end = min(position, count)
                if let output, let base = input.baseAddress { (output + written).update(from: base + start, count: end - start) }
                written += end - start
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let closing = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                put(byte)
                if position + 1 < count && input[position + 1] == closing {
                    put(closing)
                    position += 2
                    continue
                }
                depth += 1
                newline(depth: depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline(depth: max(depth, 0))
                put(byte)
            case UInt8(ascii: ","):
                put(byte)
                newline(depth: depth)
            case UInt8(ascii: ":"):
                put(byte)
                put(UInt8(ascii: " "))
            default:
                put(byte)
            }
            position += 1
        }
        put(UInt8(ascii: "\n"))
        return written
    }

    private static func newline(depth: Int, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// A member's place in a dictionary and the first eight UTF-8 bytes of its key as a
    /// big-endian number, so that most key comparisons are one integer comparison.
    private struct SortEntry {
        let prefix: UInt64
        let index: [String: JSONValue].Index
    }

    /// Calls `body` with each member of an object in the code point order of the keys.
    ///
    /// Sorts the dictionary's indices in a temporary buffer (on the stack for typical
    /// objects) rather than copying the members into a sorted array.
    static func forEachMemberInOrder(
        _ members: [String: JSONValue], _ body: (_ position: Int, _ key: String, _ value: JSONValue) -> Void
    ) {
        withUnsafeTemporaryAllocation(of: SortEntry.self, capacity: members.count) { buffer in
            var count = 0
            var index = members.startIndex
            while index != members.endIndex, count < buffer.count {
                buffer.initializeElement(at: count, to: SortEntry(prefix: keyPrefix(members.keys[index]), index: index))
                count += 1
                members.formIndex(after: &index)
            }
            var entries = UnsafeMutableBufferPointer(rebasing: buffer[..<count])
            defer { entries.deinitialize() }
            entries.sort { lhs, rhs in
                if lhs.prefix != rhs.prefix { return lhs.prefix < rhs.prefix }
                return precedesInCodePointOrder(members.keys[lhs.index], members.keys[rhs.index])
            }
            for (position, entry) in entries.enumerated() {
                let member = members[entry.index]
                body(position, member.key, member.value)
            }
        }
    }

    /// The first eight UTF-8 bytes of `key`, big-endian, zero-padded. Comparing prefixes as
    /// integers orders keys by their first eight bytes; equal prefixes need a full comparison.
    private static func keyPrefix(_ key: String) -> UInt64 {
        let fast = key.utf8.withContiguousStorageIfAvailable { bytes in
            var prefix: UInt64 = 0
            for index in 0..<min(8, bytes.count) {
                prefix |= UInt64(bytes[index]) << (56 - 8 * UInt64(index))
            }
            return prefix
        }
        if let fast { return fast }
        var prefix: UInt64 = 0
        for (index, byte) in key.utf8.prefix(8).enumerated() {
            prefix |= UInt64(byte) << (56 - 8 * UInt64(index))
        }
        return prefix
    }

    /// Whether `lhs` sorts before `rhs` by Unicode code points, which is the order of their
    /// UTF-8 bytes. (Swift's `<` on strings orders by canonical equivalence instead.)
    static func precedesInCodePointOrder(_ lhs: String, _ rhs: String) -> Bool {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                let common = min(left.count, right.count)
                for index in 0..<common where left[index] != right[index] {
                    return left[index] < right[index]
                }
                return left.count < right.count
            }
        }
        if let fast, let result = fast { return result }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// Appends a string in quotes, escaping only `"`, `\` and U+0000–U+001F.
    static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        let handled: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            var runStart = 0
            var index = JSONByteScan.firstByteToEscape(in: bytes, from: 0)
            while index < bytes.count {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                writeEscape(bytes[index], to: &output)
                runStart = index + 1
                index = JSONByteScan.firstByteToEscape(in: bytes, from: runStart)
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        if handled == nil {
            for byte in string.utf8 {
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    writeEscape(byte, to: &output)
                } else {
                    output.append(byte)
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func writeEscape(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x09: output.append(UInt8(ascii: "t"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        default:
            // Only U+0000–U+001F get here, so the high digit is 0 or 1.
            let low = byte & 0xF
            output.append(UInt8(ascii: "u"))
            output.append(UInt8(ascii: "0"))
            output.append(UInt8(ascii: "0"))
            output.append(UInt8(ascii: "0") + (byte >> 4))
            output.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
        }
    }

    static func append(_ text: StaticString, to output: inout [UInt8]) {
        text.withUTF8Buffer { output.append(contentsOf: $0) }
    }
}
