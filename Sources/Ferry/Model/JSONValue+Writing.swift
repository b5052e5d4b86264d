extension JSONValue {
    /// The value in Ferry's canonical JSON form, the bytes every replica hashes.
    ///
    /// ```swift
    /// let value: JSONValue = ["b": 1, "a": [true, "x\n"]]
    /// String(decoding: value.canonicalBytes(), as: UTF8.self) // {"a":[true,"x\n"],"b":1}
    /// ```
    /// - Returns: The UTF-8 bytes of the canonical form; see ``writeCanonical(to:)`` for its rules.
    public func canonicalBytes() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        writeCanonical(to: &output)
        return output
    }

    /// Appends the value's canonical JSON form to `output`.
    ///
    /// The canonical form follows RFC 8785 (JSON Canonicalization Scheme) with two deliberate
    /// differences: integers are written exactly (JCS would round those beyond 2^53 through a
    /// double), and keys are sorted by code point rather than by UTF-16 code unit (the orders
    /// differ only between characters above U+FFFF and those in U+E000–U+FFFF). It is
    /// deterministic and must never change, because replicas compare SHA-256 hashes of it:
    ///
    /// - No whitespace anywhere.
    /// - Object members sorted by the Unicode code points of their keys, which is the order of
    ///   the keys' UTF-8 bytes (not Swift's `String` `<`): `"z"` < `"é"` < `"😀"`.
    /// - Strings escape only `"` as `\"`, `\` as `\\`, and U+0000–U+001F: `\b`, `\t`, `\n`,
    ///   `\f`, `\r` where JSON has a short form, otherwise `\u00XX` with lowercase hex. Every
    ///   other character, `/` and non-ASCII included, is written as raw UTF-8.
    /// - ``integer(_:)`` is written in plain decimal, `-` for negatives, no leading zeros.
    /// - ``double(_:)`` is written as ECMAScript's `Number.prototype.toString` does: the
    ///   shortest digits that read back as the same double, plain decimal when
    ///   1e-7 ≤ |x| < 1e21 (`0.000001`, `333333333.3333333`, `100000000000000000000`), else
    ///   `d.ddde±n` with a lowercase `e` and explicit sign (`1e-7`, `1e+21`, `5e-324`).
    ///   `-0.0` is `0`. NaN and the infinities, which no parsed value holds, are `null`.
    /// - `true`, `false`, `null` as themselves; `[]` and `{}` for empty containers.
    ///
    /// Parsing the canonical bytes of any value the parser produced gives back an equal value,
    /// and writing a parsed value gives the same bytes whatever the layout of the original
    /// text. A ``double(_:)`` holding an integral value that fits in `Int64` (`.double(1.0)`,
    /// `.double(1e18)`) writes the same digits as that integer and reads back as
    /// ``integer(_:)``, so build numbers with ``number(_:)`` or the parser to keep them equal.
    ///
    /// Writing recurses once per level of nesting; values from the parser are at most
    /// ``JSONParser/Options/maximumDepth`` deep.
    ///
    /// ```swift
    /// var line: [UInt8] = []
    /// entry.writeCanonical(to: &line)
    /// line.append(UInt8(ascii: "\n"))
    /// ```
    /// - Parameter output: The buffer to append to.
    public func writeCanonical(to output: inout [UInt8]) {
        JSONWriter.writeCanonical(self, to: &output)
    }

    /// The value pretty-printed for people: the canonical order and number forms, two-space
    /// indentation, `"key": value`, and a newline at the end.
    ///
    /// ```swift
    /// let value: JSONValue = ["name": "Lamp", "tags": ["home"], "extra": [:]]
    /// print(String(decoding: value.prettyBytes(), as: UTF8.self), terminator: "")
    /// // {
    /// //   "extra": {},
    /// //   "name": "Lamp",
    /// //   "tags": [
    /// //     "home"
    /// //   ]
    /// // }
    /// ```
    /// - Returns: UTF-8 bytes laid out like `JSON.stringify(value, null, 2)` plus `"\n"`.
    public func prettyBytes() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        JSONWriter.writePretty(self, depth: 0, to: &output)
        output.append(UInt8(ascii: "\n"))
        return output
    }

    /// The canonical form as text; see ``writeCanonical(to:)``.
    ///
    /// ```swift
    /// JSONValue.array([1, 2.5, nil]).canonicalText // [1,2.5,null]
    /// ```
    public var canonicalText: String {
        String(decoding: canonicalBytes(), as: UTF8.self)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The canonical form as text, so `print(value)` and string interpolation show JSON.
    public var description: String { canonicalText }
}
