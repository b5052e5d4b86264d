/// Reads the few XML documents S3 answers with (ListObjectsV2 results, errors) by their
/// element names. S3's responses are flat and well formed; this reads only what Ferry needs
/// and never recurses, so no input can make it deep or slow.
enum S3XML {
    /// The text of every element named `name` (outermost first), entities decoded. Elements
    /// nest in S3's answers only as `<Contents>` around `<Key>`…, which callers read in two steps.
    static func elements(_ name: String, in text: Substring) -> [Substring] {
        let open = "<\(name)>"
        let close = "</\(name)>"
        var results: [Substring] = []
        var rest = text[...]
        while let start = rest.range(of: open) {
            guard let end = rest[start.upperBound...].range(of: close) else { break }
            results.append(rest[start.upperBound..<end.lowerBound])
            rest = rest[end.upperBound...]
        }
        return results
    }

    /// The decoded text of the first element named `name`.
    static func first(_ name: String, in text: Substring) -> String? {
        elements(name, in: text).first.map { decode($0) }
    }

    /// Replaces the five named entities and numeric character references.
    static func decode(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            guard character == "&", let semicolon = text[index...].prefix(12).firstIndex(of: ";") else {
                output.append(character)
                index = text.index(after: index)
                continue
            }
            let entity = text[text.index(after: index)..<semicolon]
            var replacement: String?
            switch entity {
            case "amp": replacement = "&"
            case "lt": replacement = "<"
            case "gt": replacement = ">"
            case "quot": replacement = "\""
            case "apos": replacement = "'"
            default:
                if entity.hasPrefix("#x") || entity.hasPrefix("#X"), let value = UInt32(entity.dropFirst(2), radix: 16) {
                    replacement = Unicode.Scalar(value).map { String(Character($0)) }
                } else if entity.hasPrefix("#"), let value = UInt32(entity.dropFirst()) {
                    replacement = Unicode.Scalar(value).map { String(Character($0)) }
                }
            }
            if let replacement {
                output += replacement
                index = text.index(after: semicolon)
            } else {
                output.append(character)
                index = text.index(after: index)
            }
        }
        return output
    }
}
