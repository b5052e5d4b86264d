/// A peer that can tell, without writing, whether this exchange may write to it (a read-only
/// token may not). A dry run asks, to list the refusal a push would meet.
public protocol WriteCheck: AnyObject, Sendable {
    /// Whether this exchange may write to the peer; `nil` when the peer cannot tell.
    func mayWrite() async -> Bool?
}
