import Ferry
import Foundation

/// Collects the warnings a store reports (a torn journal tail cut, an index rebuilt), for
/// tests to check, instead of printing them on standard error.
///
/// ```swift
/// let warnings = WarningRecorder()
/// var options = StoreOptions()
/// options.warningHandler = warnings.handler
/// _ = try Store.open(at: path, options: options)
/// #expect(warnings.messages.contains { $0.contains("torn") })
/// ```
public final class WarningRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    public init() {}

    /// The warnings received so far, in order.
    public var messages: [String] { lock.withLock { recorded } }

    /// A handler for ``StoreOptions/warningHandler`` that records into this object.
    public var handler: @Sendable (String) -> Void {
        { [self] message in lock.withLock { recorded.append(message) } }
    }

    /// Forgets what was recorded.
    public func reset() { lock.withLock { recorded.removeAll() } }
}
