/// A peer that counts the requests an exchange made to it (each costs latency, and on S3
/// money); the sync report gives the count.
public protocol RequestCounting: AnyObject, Sendable {
    /// Requests made to the peer so far, retries included.
    var requestCount: Int { get }
}
