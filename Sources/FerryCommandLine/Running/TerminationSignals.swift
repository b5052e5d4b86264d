import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM taken over from their default action (ending the process) and handled
/// on a Dispatch queue, for the long-running commands (`serve`, `sync --watch`) that stop
/// cleanly. Handling lasts while the value is alive; ``cancel()`` ends it.
final class TerminationSignals {
    private var sources: [DispatchSourceSignal] = []

    /// Starts calling `handler` with the signal's number on every SIGINT and SIGTERM.
    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        for number in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// Stops handling the signals (they stay ignored).
    func cancel() {
        sources.forEach { $0.cancel() }
        sources = []
    }

    deinit { cancel() }
}
