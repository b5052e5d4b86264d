import Ferry
import Foundation

/// Listens to an app backend's realtime feed for `sync --watch` and calls `wake` (the watch's
/// ``LiveSync/wake()``) at each event; when the server goes away it says so once and reconnects
/// with backoff (1, 2, 4 … 30 s), and says when it is connected again.
struct RealtimeListener {
    let realtime: PocketBaseRealtime
    let wake: @Sendable () -> Void
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
                        wake()  // subscribed: sync once for what came meanwhile; changed: sync
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
