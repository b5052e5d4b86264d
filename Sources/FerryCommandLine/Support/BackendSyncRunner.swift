import Ferry
import Foundation

/// `ferry sync <store> pocketbase+http://…`: one two-way sync with an app backend, as an
/// ordinary user (credentials from the environment), and its report.
struct BackendSyncRunner {
    let storePath: String
    let location: PocketBaseLocation
    let options: BackendSyncEngine.Options
    let commitFirst: Bool
    let context: CommandContext
    let json: Bool

    func once(httpClient: any HTTPClient) async throws -> ExitCode {
        let client = PocketBaseClient(location: location, credentials: try PocketBaseCredentials.forSync(environment: context.environment),
                                      httpClient: httpClient)
        let store = try context.openStore(storePath)
        defer { store.close() }
        _ = try await syncAndPrint(store: store, client: client, quietWhenIdle: false)
        return .success
    }

    /// Syncs on the backend's realtime events (reconnecting with backoff when the server goes
    /// away), on local changes, and every `interval` seconds, until Ctrl-C.
    func watch(httpClient: any HTTPClient, interval: Double) async throws -> ExitCode {
        let client = PocketBaseClient(location: location, credentials: try PocketBaseCredentials.forSync(environment: context.environment),
                                      httpClient: httpClient)
        let store = try context.openStore(storePath)
        defer { store.close() }
        let stop = StopFlag()
        let signals = TerminationSignals { _ in
            if stop.raise() { exit(130) }
        }
        defer { signals.cancel() }
        context.stderr.line("watching \(store.path) ↔ \(location) (realtime, local changes, every \(interval) s; Ctrl-C to stop)")
        let wake = WakeFlag()
        let realtime = PocketBaseRealtime(client: client, httpClient: httpClient, collections: options.mapping.entries.map(\.collection))
        let stderr = context.stderr
        let listener = Task {
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
        defer { listener.cancel() }
        var lastConflicts: [RecordKey] = []
        await WatchLoop(store: store, interval: interval, poll: 100_000_000, stop: stop, stderr: context.stderr).run(wake: wake.take) { afterError in
            let report = try await syncAndPrint(store: store, client: client, quietWhenIdle: true, lastConflicts: lastConflicts, afterError: afterError)
            lastConflicts = report.conflicts
        }
        return .success
    }

    /// One sync and its report; with `quietWhenIdle`, nothing is printed when nothing moved.
    private func syncAndPrint(
        store: Store, client: PocketBaseClient, quietWhenIdle: Bool, lastConflicts: [RecordKey] = [], afterError: Bool = false
    ) async throws -> BackendSyncEngine.Report {
        var committed = 0
        if commitFirst {
            let report = try store.commit()
            committed = report.committed.count
            for problem in report.problems { context.stderr.line("warning: \(problem.path): \(problem.reason) (not committed)") }
        }
        let started = ContinuousClock.now
        let report = try await BackendSyncEngine(store: store, backend: PocketBaseBackend(client: client), options: options).sync()
        let moved = report.pulled + report.pushed + report.deletedOnBackend + report.purged + report.resolved + committed > 0
        if quietWhenIdle && !moved && report.conflicts == lastConflicts && report.notes.isEmpty && !afterError { return report }
        let elapsed = started.duration(to: .now)
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        if json {
            context.printJSONLine([
                "peer": .string(location.description), "pulled": .integer(Int64(report.pulled)), "pushed": .integer(Int64(report.pushed)),
                "deletedOnBackend": .integer(Int64(report.deletedOnBackend)), "purged": .integer(Int64(report.purged)), "resolved": .integer(Int64(report.resolved)),
                "conflicts": .array(report.conflicts.map { .string("\($0.entity.rawValue)/\($0.id.rawValue)") }),
                "waiting": .array(report.waiting.map { .string("\($0.entity.rawValue)/\($0.id.rawValue)") }),
                "committed": .integer(Int64(committed)), "requests": .integer(Int64(report.requests)),
                "rounds": .integer(Int64(report.rounds)), "milliseconds": .integer(Int64(milliseconds)),
                "notes": .array(report.notes.map { .string($0) }),
            ])
        } else {
            var line = "\(location): pulled \(report.pulled), pushed \(report.pushed)"
            if report.deletedOnBackend > 0 { line += ", \(report.deletedOnBackend) deleted on the backend" }
            if report.purged > 0 { line += ", purged \(report.purged) deleted long ago" }
            if report.resolved > 0 { line += ", \(report.resolved) resolved by \(options.policy.rawValue)" }
            if !report.conflicts.isEmpty { line += ", \(report.conflicts.count) conflict\(report.conflicts.count == 1 ? "" : "s")" }
            line += " (\(milliseconds) ms, \(report.requests) request\(report.requests == 1 ? "" : "s"))"
            context.stdout.line(line)
            if committed > 0 { context.stdout.line("committed \(committed) hand edit\(committed == 1 ? "" : "s") first") }
            for key in report.conflicts { context.stdout.line("  conflict: \(key.entity.rawValue)/\(key.id.rawValue) (see ferry conflicts)") }
            for note in report.notes { context.stdout.line("note: \(note)") }
        }
        return report
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
