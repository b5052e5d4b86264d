/// Why a backend request failed, in one line that names the collection and record when there
/// is one: `PATCH Note/abc123: 400 Failed to update record. (title: Must be no more than 5000 character(s).)`.
///
/// The kind says what a caller can do about it: only ``Kind/unreachable`` and
/// ``Kind/rateLimited`` are worth another attempt later; the others need the user.
public struct BackendError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, broadly.
    public enum Kind: String, Sendable {
        /// The server did not answer, or answered 5xx, after the retries.
        case unreachable
        /// The credentials were refused, or are missing.
        case authentication
        /// A rule of the backend refused the request (403), or the credentials are a
        /// superuser's where an ordinary user's are needed.
        case forbidden
        /// The server refused what was sent (400, with its field errors).
        case invalid
        /// No such record or collection (404), or a compare-and-set that did not hold.
        case notFound
        /// Too many requests (429), after the retries.
        case rateLimited
        /// A collection whose fields or rules do not fit Ferry's mapping.
        case setup
        /// An answer that is not what the backend's API says.
        case protocolViolation
        /// The local store, or what it keeps of the backend, could not be read or written.
        case local
    }

    public var kind: Kind
    /// The one-line message.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
