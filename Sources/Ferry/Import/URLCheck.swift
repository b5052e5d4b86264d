/// The checks an imported `url` attribute passes: an absolute URL, without spaces or controls.
enum URLCheck {
    /// Why `text` is not an acceptable URL, or `nil` when it is.
    static func problem(in text: String) -> String? {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
            return "expected an absolute URL such as https://example.com"
        }
        let scheme = bytes[..<colon]
        guard let first = scheme.first, first.isASCIILetter,
            scheme.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else { return "the scheme before ':' is not valid" }
        if let bad = bytes.first(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return bad == 0x20 ? "it contains a space" : "it contains a control character"
        }
        let rest = bytes[(colon + 1)...]
        guard !rest.isEmpty else { return "nothing follows the scheme" }
        let lowerScheme = String(decoding: scheme, as: UTF8.self).lowercased()
        if ["http", "https", "ftp", "ws", "wss"].contains(lowerScheme) {
            guard rest.starts(with: "//".utf8) else { return "expected // after \(lowerScheme):" }
            let host = rest.dropFirst(2).prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
            let hostName = host.split(separator: UInt8(ascii: "@")).last ?? host
            guard !hostName.isEmpty, hostName.first != UInt8(ascii: ":") else { return "the host is missing" }
        }
        return nil
    }
}

extension UInt8 {
    var isASCIIHexDigit: Bool {
        isASCIIDigit || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66)
    }
}
