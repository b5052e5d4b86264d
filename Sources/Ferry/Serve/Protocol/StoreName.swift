/// The name of a store hosted by `ferry serve`: the store's directory under the server's root
/// and the last path component of its URL.
///
/// A name is 1 to 64 characters of `A–Z a–z 0–9 . _ -`, starting with a letter or digit, so it
/// can never be a hidden file, `.`, `..` or a path with a slash in it.
///
/// ```swift
/// let name = try StoreName("alice")        // ok
/// _ = try StoreName("../etc")              // throws StoreNameError
/// ```
package struct StoreName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The name as given.
    package let rawValue: String

    /// The longest name accepted.
    package static let maximumLength = 64

    /// Checks and wraps a name.
    /// - Throws: ``StoreNameError`` saying which rule `text` breaks.
    package init(_ text: String) throws(StoreNameError) {
        let bytes = Array(text.utf8)
        guard let first = bytes.first else { throw StoreNameError(name: text, reason: "it is empty") }
        guard bytes.count <= Self.maximumLength else {
            throw StoreNameError(name: text, reason: "it is longer than \(Self.maximumLength) characters")
        }
        guard Self.isAlphanumeric(first) else {
            throw StoreNameError(name: text, reason: "it must start with a letter or a digit")
        }
        for byte in bytes where !Self.isAlphanumeric(byte) && byte != UInt8(ascii: ".") && byte != UInt8(ascii: "_")
            && byte != UInt8(ascii: "-")
        {
            throw StoreNameError(name: text, reason: "only letters, digits, '.', '_' and '-' are allowed")
        }
        rawValue = text
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// The name.
    package var description: String { rawValue }

    /// Orders names by their text.
    package static func < (lhs: StoreName, rhs: StoreName) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A store name that breaks the rules of ``StoreName``.
package struct StoreNameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name as given.
    package var name: String
    /// The rule it breaks.
    package var reason: String

    /// `invalid store name "…": reason`.
    package var description: String { "invalid store name \(quoted(name)): \(reason)" }
}
