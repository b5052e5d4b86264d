import Ferry
import Foundation

/// The loop of `sync --watch`, with a folder, a server, a hub or an app backend: a sync when
/// the store's journal grows, when `wake` says so (a realtime event), and at least every
/// `interval` seconds, until `stop` is raised. An error is said once, until it changes, and the
/// loop goes on: the peer may come back. A refusal that waits for the user (a mass deletion) is
/// said every time, so it is not lost above the lines that follow.
struct WatchLoop {
    let store: Store
    let interval: Double
    /// How often the loop looks at the store and at `wake`, in nanoseconds.
    let poll: UInt64
    let stop: StopFlag
    let stderr: OutputWriter

    /// Runs until stopped; `sync` is told whether the sync before it failed (its report is
    /// then worth a line even when nothing moved).
    func run(wake: () -> Bool = { false }, sync: (_ afterError: Bool) async throws -> Void) async {
        var lastHead = store.head
        var nextDue = Date()
        var lastError: String?
        while !stop.isRaised {
            if wake() || Date() >= nextDue || store.head != lastHead {
                do {
                    try await sync(lastError != nil)
                    lastError = nil
                } catch {
                    let message = "\(error)"
                    if message != lastError || Self.waitsForTheUser(error) { stderr.line("error: \(message)") }
                    lastError = message
                }
                lastHead = store.head
                nextDue = Date().addingTimeInterval(interval)
            }
            try? await Task.sleep(nanoseconds: poll)
        }
        stderr.line("stopped watching")
    }

    /// Whether `error` is a refusal that only the user can lift, repeated on every sync.
    static func waitsForTheUser(_ error: any Error) -> Bool {
        if case .massDeletion? = error as? SyncError { return true }
        return false
    }
}
