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
        let credentials = try PocketBaseCredentials.forSync(environment: context.environment)
        let store = try context.openStore(storePath)
        defer { store.close() }
        var committed = 0
        if commitFirst {
            let report = try store.commit()
            committed = report.committed.count
            for problem in report.problems { context.stderr.line("warning: \(problem.path): \(problem.reason) (not committed)") }
        }
        let started = ContinuousClock.now
        let client = PocketBaseClient(location: location, credentials: credentials, httpClient: httpClient)
        let report = try await BackendSyncEngine(store: store, backend: PocketBaseBackend(client: client), options: options).sync()
        let elapsed = started.duration(to: .now)
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        if json {
            context.printJSONLine([
                "peer": .string(location.description), "pulled": .integer(Int64(report.pulled)), "pushed": .integer(Int64(report.pushed)),
                "deletedOnBackend": .integer(Int64(report.deletedOnBackend)), "resolved": .integer(Int64(report.resolved)),
                "conflicts": .array(report.conflicts.map { .string("\($0.entity.rawValue)/\($0.id.rawValue)") }),
                "waiting": .array(report.waiting.map { .string("\($0.entity.rawValue)/\($0.id.rawValue)") }),
                "committed": .integer(Int64(committed)), "requests": .integer(Int64(report.requests)),
                "rounds": .integer(Int64(report.rounds)), "milliseconds": .integer(Int64(milliseconds)),
                "notes": .array(report.notes.map { .string($0) }),
            ])
        } else {
            var line = "\(location): pulled \(report.pulled), pushed \(report.pushed)"
            if report.deletedOnBackend > 0 { line += ", \(report.deletedOnBackend) deleted on the backend" }
            if report.resolved > 0 { line += ", \(report.resolved) resolved by \(options.policy.rawValue)" }
            if !report.conflicts.isEmpty { line += ", \(report.conflicts.count) conflict\(report.conflicts.count == 1 ? "" : "s")" }
            line += " (\(milliseconds) ms, \(report.requests) request\(report.requests == 1 ? "" : "s"))"
            context.stdout.line(line)
            if committed > 0 { context.stdout.line("committed \(committed) hand edit\(committed == 1 ? "" : "s") first") }
            for key in report.conflicts { context.stdout.line("  conflict: \(key.entity.rawValue)/\(key.id.rawValue) (see ferry conflicts)") }
            for note in report.notes { context.stdout.line("note: \(note)") }
        }
        return .success
    }
}
