/// The protocol version of a request: the server speaks HTTP/1.1 and HTTP/1.0.
///
/// ```swift
/// if request.version == .http10 { ... }
/// ```
package struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version, `1`.
    package let major: Int
    /// The minor version, `0` or `1`.
    package let minor: Int

    /// Makes a version from its numbers.
    package init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0: connections close after each response unless the client asks to keep them.
    package static let http10 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1: connections stay open unless either side says `Connection: close`.
    package static let http11 = HTTPVersion(major: 1, minor: 1)

    /// `HTTP/1.1`.
    package var description: String { "HTTP/\(major).\(minor)" }
}
