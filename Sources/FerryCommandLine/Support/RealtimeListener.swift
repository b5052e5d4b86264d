import Ferry
import Foundation

/// Listens to an app backend's realtime feed for `sync --watch` and raises `wake` at each
/// event; when the server goes away it says so once and reconnects with backoff (1, 2, 4 …
/// 30 s), and says when it is connected again.
struct RealtimeListener {
    let realtime: PocketBaseRealtime
    let wake: WakeFlag
    let stderr: OutputWriter

    func start() -> Task<Void, Never> {
        let (realtime, wake, stderr) = (realtime, wake, stderr)
        return Task {
            var delay = 1.0
            var lastError: String?
            while !Task.isCancelled {
                do {
                    for try await event in try await realtime.events() {
                        if event == .subscribed {
                            if lastError != nil { stderr.line("realtime: connected again") }
                            delay = 1
                            lastError = nil
                        }
                        wake.raise()  // subscribed: sync once for what came meanwhile; changed: sync
                    }
                } catch {
                    let message = "\(error)"
                    if message != lastError { stderr.line("realtime: \(message); reconnecting in \(Int(delay)) s (then less often)") }
                    lastError = message
                }
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                delay = min(delay * 2, 30)
            }
        }
    }
}

/// Raised by the realtime listener, taken by the watch loop.
final class WakeFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false

    func raise() { lock.withLock { raised = true } }

    /// Whether it was raised since the last call; lowers it.
    func take() -> Bool {
        lock.withLock {
            defer { raised = false }
            return raised
        }
    }
}
