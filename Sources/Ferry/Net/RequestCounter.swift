import Foundation

/// A thread-safe count of requests, for the figures a sync reports.
final class RequestCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add(_ n: Int = 1) { lock.withLock { count += n } }
    var value: Int { lock.withLock { count } }
}
