import Dispatch
import Ferry
import Foundation

/// `ferry sync <store> <peer>`: brings two replicas to the same state.
enum SyncCommand: Command {
    static let spec = CommandSpec(
        name: "sync",
        abstract: "Sync a store with a peer: a store folder, a hub (folder or s3://), a 'ferry serve' URL or a PocketBase.",
        discussion: """
            Pulls the peer's changes, resolves conflicts by the policy, pushes this store's changes, and \
            records a checkpoint last, so an interrupted sync can simply run again. The plan is one of \
            full-pull, full-push, up-to-date, incremental or reconcile.
            Policies: keep-both (default: losers kept under conflicts/ until 'ferry resolve'), lww (the winner \
            is written as a resolution), merge (fields changed on different sides combine; the same field \
            changed on both sides falls back to keep-both).
            Hand edits of record files in both stores are journaled first, as 'ferry commit' does (--no-commit \
            skips that); even then, a sync never replaces a record file whose bytes differ from what Ferry wrote \
            without journaling that content first, so an edit becomes a change or a conflict, never a loss.
            The first sync of two non-empty stores that never met merges them; it says so, with how many \
            records each side brings (--dry-run shows it first).
            An empty store joining a peer store (folder or 'ferry serve') copies its state (every record's \
            current versions, deleted ones included) and then its journal from there, not every version ever \
            written; --history full copies the whole journal, for a complete audit trail on this replica.
            A hub ('ferry hub init') is a folder or an s3:// prefix that any number of replicas sync with \
            concurrently, with no server and no lock; S3 settings follow the AWS CLI (see 'ferry hub --help').
             ferry sync ./laptop /media/usb/data
             ferry sync ./laptop ~/Dropbox/notes-hub
             ferry sync ./laptop s3://team-bucket/notes --endpoint http://127.0.0.1:8333
             FERRY_TOKEN=… ferry sync ./laptop http://127.0.0.1:8080/alice
             ferry sync ./laptop http://127.0.0.1:8080/alice --token-file ~/.config/ferry/token
             ferry sync ./laptop /media/usb/data --watch --interval 30
            An app backend (pocketbase+http://host:port) syncs the same way, with every option here; \
            --entities or --mapping say what, and POCKETBASE_EMAIL/POCKETBASE_PASSWORD as whom (see docs/BACKENDS.md).
             ferry sync ./laptop pocketbase+http://127.0.0.1:8090 --entities Note --dry-run
            A peer named with 'ferry remote add' syncs by its name, with the options it was added with (options \
            given here win); with no peer, every named peer syncs in turn, each said and reported, and the exit \
            status is non-zero when any failed (see 'ferry remote --help').
             ferry remote add usb /media/usb/data --policy merge --store ./laptop
             ferry sync ./laptop usb
             ferry sync ./laptop
            """,
        arguments: [
            .required("store", help: "The local store directory."),
            .optional(
                "peer",
                help: "A peer store directory, a hub folder, s3://bucket/prefix, http(s)://host:port/<name>, pocketbase+http(s)://host:port, or the name of a peer added with 'ferry remote add' (none: every named peer, in turn)."),
        ],
        options: [
            .flag("dry-run", help: "Print the plan and the counts; change nothing."),
            .value("policy", valueName: "policy", help: "keep-both, lww or merge.", default: "keep-both"),
            .flag("json", help: "Print the report as one JSON object."),
            .flag("force", help: "Allow a sync that deletes more than --max-delete and --max-delete-count of a store's records."),
            .flag("trust-new", help: "Hub: admit replicas that are not members of the hub yet, adding them to its members (each is named)."),
            .value("max-delete", valueName: "percent", help: "The largest share of records one sync may delete.", default: "50"),
            .value(
                "max-delete-count", valueName: "records",
                help: "The guard's floor: a sync may always delete this many records, whatever their share.", default: "10"),
            .value("max-skew", valueName: "seconds", help: "Refuse changes stamped further ahead of this clock.", default: "86400"),
            .flag("restamp", help: "Stamp this store's unpublished changes again, when its clock ran ahead: it becomes a new replica (see 'ferry reidentify')."),
            .flag("no-commit", help: "Do not journal hand edits of record files first (an edit is still never overwritten)."),
            .flag("commit", help: "Journal hand edits first (the default; kept for scripts)."),
            .flag("pull-only", help: "Only bring the peer's changes here; write nothing to the peer (read-only tokens)."),
            .flag("push-only", help: "Only send this store's changes; change nothing here (a one-way mirror)."),
            .value("history", valueName: "state|full", help: "What an empty store copies from a peer store: its state, or its whole journal.", default: "state"),
            .value("token", valueName: "token", help: "Bearer token for an HTTP peer (default: $FERRY_TOKEN; visible in ps: prefer --token-file)."),
            .value("token-file", valueName: "file", help: "Read the bearer token for an HTTP peer from this file (its first line)."),
            .value("endpoint", valueName: "url", help: "The S3 endpoint of an s3:// hub (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, AWS)."),
            .flag("watch", help: "Keep syncing on every change here or at the peer, and on the interval, until Ctrl-C (an s3:// hub is listed ~1 s after activity, then less often)."),
            .value("interval", valueName: "seconds", help: "With --watch: sync at least this often (an idle s3:// hub: 3600/interval requests an hour).", default: "30"),
            .value("entities", valueName: "A,B", help: "With an app backend (pocketbase+http://…): the entities to sync, each a collection."),
            .value("mapping", valueName: "file", help: "With an app backend: a JSON file naming each entity's collection and renamed fields."),
            .value("owner-field", valueName: "field", help: "With an app backend whose users each own records: the owner's relation field (docs/BACKENDS.md)."),
            .value("purge-after", valueName: "duration", help: "With an app backend: delete records marked deleted this long ago outright (or never).", default: "30d"),
        ],
        examples: ["ferry sync ./laptop ./phone --dry-run", "ferry sync ./laptop usb", "ferry sync ./laptop"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let storePath = try arguments.requiredPositional("store")
        // No peer: every named peer in turn; a peer's name: that peer, with what it remembers.
        guard let peerText = arguments.positional("peer") else {
            return try await syncEveryNamedPeer(arguments, storePath: storePath, context: context)
        }
        if let named = try namedPeer(peerText, storePath: storePath, context: context) {
            return try await syncOnce(arguments.remembering(named), storePath: storePath, context: context, named: named.name)
        }
        return try await syncOnce(arguments, storePath: storePath, context: context)
    }

    /// One sync (or one watch) of the store with the peer its arguments name.
    /// - Parameter named: the peer's name, when it is a named peer (a JSON report says it).
    static func syncOnce(
        _ arguments: ParsedArguments, storePath: String, context: CommandContext, named: String? = nil
    ) async throws -> ExitCode {
        let peerText = try arguments.requiredPositional("peer")
        // The peer decides first: one that needs the network goes to ferry-remote before any
        // other argument is read, so every check below runs once, in the process that syncs.
        let token = try bearerToken(arguments, context: context)
        let peer = try context.peerAddress(peerText, token: token)
        let httpClient = peer.needsHTTPClient ? try context.httpClientOrHandOff(for: peerText) : nil
        var options = try checkedOptions(arguments, peer: peer, peerText: peerText)
        let interval = try arguments.double("interval") ?? 30
        guard interval >= 0.1 else { throw UsageError("--interval must be at least 0.1 seconds") }
        if arguments.flag("watch") && arguments.flag("dry-run") { throw UsageError("--watch and --dry-run do not go together") }
        if context.stderrIsTerminal && !arguments.flag("json") { options.progress = SyncProgressPrinter(context: context).callback }

        var backend: BackendPeer.Settings?
        if case .backend(let location) = peer {
            backend = try backendSettings(arguments, location: location, storePath: storePath, context: context)
        }
        var s3: S3Configuration?
        if case .s3Hub = peer {
            s3 = try S3Configuration.fromEnvironment(context.environment, endpoint: arguments.option("endpoint"))
        }
        if arguments.flag("restamp") { try restamp(storePath, maximumSkew: options.maximumClockSkewMilliseconds, context: context) }
        let store = try context.openStore(storePath)
        defer { store.close() }
        var runner = SyncRunner(
            store: store, peer: peer, options: options, commitFirst: !arguments.flag("no-commit"), context: context,
            json: arguments.flag("json"), httpClient: httpClient, s3: s3)
        runner.peerName = named
        runner.trustNew = arguments.flag("trust-new")
        if let backend {
            // One peer for every sync of a watch: its session is signed in once.
            runner.transport = try peer.makeTransport(options: context.storeOptions(), httpClient: httpClient, backend: backend)
        }
        if arguments.flag("watch") {
            return try await runner.watch(interval: interval)
        }
        return try await runner.once()
    }

    /// The sync options of a command line, each checked against the peer it is for: what
    /// `ferry sync` runs with, and what `ferry remote add` checks before it remembers them.
    static func checkedOptions(_ arguments: ParsedArguments, peer: PeerAddress, peerText: String) throws -> SyncOptions {
        guard let policy = ConflictPolicy(rawValue: arguments.option("policy") ?? "keep-both") else {
            throw UsageError("--policy must be keep-both, lww or merge, got '\(arguments.option("policy") ?? "")'")
        }
        let maxDelete = try arguments.integer("max-delete", in: 0...100) ?? 50
        let deletionFloor = try arguments.integer("max-delete-count", in: 0...Int(Int32.max)) ?? 10
        let maxSkew = try arguments.integer("max-skew", in: 1...(10 * 365 * 86400)) ?? 86400
        if arguments.flag("pull-only") && arguments.flag("push-only") { throw UsageError("--pull-only and --push-only do not go together") }
        if arguments.flag("commit") && arguments.flag("no-commit") { throw UsageError("--commit and --no-commit do not go together") }
        var options = SyncOptions(policy: policy)
        options.dryRun = arguments.flag("dry-run")
        options.force = arguments.flag("force")
        options.maximumDeletionShare = Double(maxDelete) / 100
        options.deletionFloor = deletionFloor
        options.maximumClockSkewMilliseconds = UInt64(maxSkew) * 1000
        guard let history = JoinHistory(rawValue: arguments.option("history") ?? "state") else {
            throw UsageError("--history must be state or full, got '\(arguments.option("history") ?? "")'")
        }
        options.history = history
        if arguments.flag("pull-only") { options.direction = .pullOnly }
        if arguments.flag("push-only") { options.direction = .pushOnly }
        if case .backend = peer {
            if history == .full { throw UsageError("--history full is for peer stores, not app backends") }
            for option in ["token", "token-file", "endpoint"] where arguments.option(option) != nil {
                throw UsageError("--\(option) is not for app backends (credentials come from POCKETBASE_EMAIL/POCKETBASE_PASSWORD or POCKETBASE_TOKEN)")
            }
        } else {
            for option in ["entities", "mapping", "purge-after", "owner-field"] where !arguments.options(option).isEmpty {
                throw UsageError("--\(option) is for app backends (pocketbase+http://…)")
            }
        }
        if history == .full && peer.isHub {
            throw UsageError("--history full is for peer stores: a hub keeps snapshots of old history, not all of it (see 'ferry hub compact')")
        }
        if case .s3Hub = peer {} else if arguments.option("endpoint") != nil {
            throw UsageError("--endpoint is for s3:// hubs; \(peerText) is \(peer.needsHTTPClient ? "a server" : "a folder")")
        }
        return options
    }

    /// `--restamp`: the store's unpublished changes stamped past the bound are journaled again,
    /// stamped now, under a new replica id (``Store/restamp(at:maximumSkew:options:)``); said on
    /// stderr, so that `--json` stays one object.
    static func restamp(_ storePath: String, maximumSkew: UInt64, context: CommandContext) throws {
        let path = context.absolutePath(storePath)
        guard let report = try Store.restamp(at: path, maximumSkew: maximumSkew, options: context.storeOptions()) else {
            context.stderr.line("note: no unpublished change of \(storePath) is stamped ahead of this clock; nothing to re-stamp")
            return
        }
        context.stderr.line(
            "re-stamped \(report.rejournaled) record\(report.rejournaled == 1 ? "" : "s") of \(storePath) by this clock: it is now replica "
                + "\(report.newReplica.short) (was \(report.formerReplica.short)); the folder as it was: \(report.keptAt)")
    }

    /// The bearer token for an HTTP peer: `--token`, else the first line of `--token-file`, else
    /// `$FERRY_TOKEN`. A token file that cannot be read or is empty is an error that names the
    /// file, never what it holds.
    static func bearerToken(_ arguments: ParsedArguments, context: CommandContext) throws -> String? {
        guard let file = arguments.option("token-file") else { return arguments.option("token") ?? context.environment["FERRY_TOKEN"] }
        if arguments.option("token") != nil { throw UsageError("--token and --token-file do not go together") }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(context.absolutePath(file), limit: 64 * 1024) } catch {
            throw CLIError("cannot read the token file \(file): \(error)")
        }
        let line = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first ?? ""
        let token = line.trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { throw CLIError("the token file \(file) is empty: put the token on its first line") }
        return token
    }

    /// What to sync with an app backend, and as whom: `--entities` or `--mapping`,
    /// `--purge-after`, and an ordinary user's credentials from the environment.
    /// Without `--entities` or `--mapping`, those of the store's last sync with this backend.
    static func backendSettings(
        _ arguments: ParsedArguments, location: PocketBaseLocation, storePath: String, context: CommandContext
    ) throws -> BackendPeer.Settings {
        var given = try arguments.backendMapping(context: context)
        if given == nil, let remembered = Store.rememberedBackendMapping(storeAt: context.absolutePath(storePath), for: location.description) {
            let names = remembered.entities.map(\.rawValue).joined(separator: ",")
            context.stderr.line("note: syncing \(names) with \(location), as the last sync did (--entities to choose others)")
            given = remembered
        }
        guard let mapping = given else {
            throw UsageError(
                "give the entities to sync with \(location): --entities Product,Note (or --mapping FILE); "
                    + "later syncs remember them, and 'ferry remote add NAME \(location) --entities …' names the backend")
        }
        var options = BackendPeer.Options(mapping: mapping)
        if let retention = try arguments.milliseconds("purge-after") { options.purgeAfterMilliseconds = retention }
        options.ownerField = arguments.option("owner-field")
        return BackendPeer.Settings(options: options, credentials: try PocketBaseCredentials.forSync(environment: context.environment))
    }
}

/// Runs one sync or a watch loop and prints reports.
struct SyncRunner {
    let store: Store
    let peer: PeerAddress
    let options: SyncOptions
    let commitFirst: Bool
    let context: CommandContext
    let json: Bool
    /// What a peer reached over the network is reached through.
    var httpClient: (any HTTPClient)?
    var s3: S3Configuration?
    /// The peer to sync with every time, when it is made once (an app backend, whose session
    /// a watch keeps); else each sync makes its own.
    var transport: (any SyncTransport)?
    /// Admit and add replicas that are not members of a hub (`--trust-new`).
    var trustNew = false
    /// The peer's name, when it is a named peer (`ferry remote add`): a JSON report says it.
    var peerName: String?

    func once() async throws -> ExitCode {
        let report = try await syncOnce(options)
        print(report)
        return .success
    }

    /// One sync of a watch. A mass-deletion refusal stops only the direction it guards: it is
    /// said (every time: the watch goes on, and the user must answer it) with what to do, and
    /// the other direction still moves: a refused pull still pushes, a refused push still pulls.
    func watchedSync() async throws -> SyncReport {
        do {
            return try await syncOnce(options)
        } catch SyncError.massDeletion(let refused, let deleting, let total, let limit, let floor) where options.direction == .both {
            let other: SyncDirection = refused == store.path ? .pushOnly : .pullOnly
            let error = SyncError.massDeletion(store: refused, deleting: deleting, of: total, limitPercent: limit, floor: floor)
            context.stderr.line("error: \(error); until then this watch only \(other == .pushOnly ? "pushes" : "pulls")")
            var oneWay = options
            oneWay.direction = other
            return try await syncOnce(oneWay)
        }
    }

    private func syncOnce(_ options: SyncOptions) async throws -> SyncReport {
        // Hand edits first, on the sides this sync writes to (a dry run only counts them); the
        // folder transport does the peer's when it opens it.
        var committed = 0
        if commitFirst && options.direction.pulls {
            let (count, problems): (Int, [StoreStatus.Problem])
            if options.dryRun {
                let status = try store.status()
                (count, problems) = (status.edits.count, status.problems)
            } else {
                let report = try store.commit()
                (count, problems) = (report.committed.count, report.problems)
            }
            committed += count
            for problem in problems { context.stderr.line("warning: \(problem.path): \(problem.reason) (not committed)") }
        }
        let handEdits: FolderTransport.HandEdits = !commitFirst || !options.direction.pushes ? .leave : options.dryRun ? .count : .commit
        let transport = try self.transport ?? peer.makeTransport(
            options: context.storeOptions(), httpClient: httpClient, handEdits: handEdits, s3: s3)
        if let hub = transport as? HubTransport {
            hub.trustNew = trustNew
            hub.passphrase = context.environment[HubCommand.passphraseVariable]
            let location = hub.peerDescription
            hub.askPassphrase = { PassphrasePrompt.ask(for: location) }
        }
        var report = try await SyncEngine(store: store, transport: transport, options: options).run()
        for problem in report.peerProblems { context.stderr.line("warning: \(peer)/\(problem.path): \(problem.reason) (not committed)") }
        report.committedEdits += committed
        return report
    }

    private func print(_ report: SyncReport) {
        if json {
            var value = report.jsonValue
            if let peerName { value["remote"] = .string(peerName) }
            context.printJSONLine(value)
            return
        }
        if let merging = report.merging {
            context.stdout.line(
                "\(report.dryRun ? "would merge" : "merging") two stores that never synced: \(store.path) brings \(merging.localRecords) "
                    + "record\(merging.localRecords == 1 ? "" : "s"), \(peer) brings \(merging.peerRecords)")
        }
        if report.committedEdits > 0 {
            let count = report.committedEdits
            context.stdout.line("\(report.dryRun ? "would journal" : "journaled") \(count) hand edit\(count == 1 ? "" : "s") of record files first")
        }
        if let snapshot = report.snapshot {
            let why: String
            switch snapshot.reason {
            case .join: why = "instead of its history"
            case .collected: why = "the changes it lacked were collected while it was away"
            case .resume: why = "finishing a join that was stopped"
            case .historyNotHeld: why = "the peer holds the changes it lacked only as state: it joined from a snapshot itself"
            }
            // From a store: the state at a journal position of the peer (a hub's snapshot has an id of its own).
            let what = snapshot.position.map { "the state of \(peer) as of its entry \($0)" }
                ?? "snapshot \(snapshot.id.hex.prefix(12)) of \(peer)"
            context.stdout.line(
                "\(report.dryRun ? "would join" : "joined") from \(what) "
                    + "(\(snapshot.recordCount) record\(snapshot.recordCount == 1 ? "" : "s"); \(why))")
        }
        let verb = report.dryRun ? "would pull" : "pulled"
        let pushVerb = report.dryRun ? "would push" : "pushed"
        var line = "\(report.plan.rawValue): \(verb) \(report.pulled), \(pushVerb) \(report.pushed)"
        if report.direction != .both { line += " (\(report.direction.rawValue))" }
        if report.resolved > 0 { line += ", \(report.dryRun ? "would resolve" : "resolved") \(report.resolved) by \(options.policy.rawValue)" }
        line += ", \(report.conflicts.count) conflict\(report.conflicts.count == 1 ? "" : "s")"
        line += String(format: " (%.0f ms)", report.duration * 1000)
        context.stdout.line(line)
        for key in report.conflicts.prefix(20) { context.stdout.line("  conflict: \(key)  (see 'ferry conflicts')") }
        if report.conflicts.count > 20 { context.stdout.line("  … and \(report.conflicts.count - 20) more") }
        for refusal in report.refusals { context.stdout.line("  would refuse: \(refusal)") }
        for key in report.waiting.prefix(20) { context.stdout.line("  waiting: \(key)  (the next sync pushes it)") }
        if report.waiting.count > 20 { context.stdout.line("  … and \(report.waiting.count - 20) more waiting") }
        for note in report.notes { context.note(note) }
        context.detail(
            "detail: \(store.path) ↔ \(peer) (replica \(report.peer.map { $0.short } ?? "unknown")), \(report.direction.rawValue), \(AuditText.plural(report.rounds, "round")), "
                + "\(report.requests.map { AuditText.plural($0, "request") } ?? "no requests counted"), "
                + "\(report.changesSpooled) changes spooled, \(report.changesReadAgain) read again")
    }

    /// Syncs now, then on every change here or at the peer and at least every `interval`
    /// seconds (``LiveSync``), until SIGINT/SIGTERM. A signal during a sync lets that sync
    /// finish (it is safe to stop anywhere, but finishing keeps the report honest); a second
    /// signal exits at once.
    func watch(interval: Double) async throws -> ExitCode {
        var liveOptions = LiveSync.Options()
        liveOptions.sync = options
        liveOptions.interval = .milliseconds(Int64((interval * 1000).rounded()))
        liveOptions.httpClient = httpClient  // a served store's change feed
        let runner = self
        let live = LiveSync(store: store, peer: peer, options: liveOptions) { try await runner.watchedSync() }
        let stop = StopFlag()
        let signals = TerminationSignals { _ in
            if stop.raise() { exit(130) }
            Task { await live.stop() }
        }
        defer { signals.cancel() }
        context.stderr.line("watching \(store.path) ↔ \(peer) (on changes on either side, and every \(interval) s; Ctrl-C to stop)")
        // An app backend with a realtime feed wakes the loop when another client writes.
        var listener: Task<Void, Never>?
        if let backend = (transport as? BackendPeer)?.backend as? PocketBaseBackend, let httpClient {
            let collections = (transport as? BackendPeer)?.options.mapping.entries.map(\.collection) ?? []
            let realtime = PocketBaseRealtime(client: backend.client, httpClient: httpClient, collections: collections)
            listener = RealtimeListener(realtime: realtime, wake: live.wake, stderr: context.stderr).start()
        }
        defer { listener?.cancel() }
        live.start()
        var lastConflicts: [RecordKey] = []
        var saidCost = false
        for await event in live.events {
            switch event {
            case .synced(let round):
                // A line only when something happened: changes moved, conflicts changed, or the
                // sync before failed.
                let report = round.report
                if report.changedAnything || report.conflicts != lastConflicts || round.afterError {
                    print(report)
                } else {
                    let cost = round.requestsPerIdleHour.map { ", \(AuditText.plural(report.requests ?? 0, "request")): \($0) an idle hour" } ?? ""
                    context.detail(String(format: "detail: %@, nothing moved (%.0f ms)", report.plan.rawValue, report.duration * 1000) + cost)
                }
                lastConflicts = report.conflicts
                if let perHour = round.requestsPerIdleHour, !saidCost {
                    saidCost = true
                    context.stderr.line(costLine(perHour: perHour, perRound: report.requests ?? 0, interval: interval))
                }
            case .failed(let error):
                context.stderr.line("error: \(error)")
            case .note(let text):
                context.stderr.line("note: \(text)")
            }
        }
        context.stderr.line("stopped watching")
        return .success
    }

    /// What watching a polled peer costs, said once, at its first quiet round.
    private func costLine(perHour: Int, perRound: Int, interval: Double) -> String {
        var line = "cost: \(perHour) requests an idle hour (\(AuditText.plural(perRound, "request")) a quiet round, every \(interval) s when idle)"
        if perHour > PollSchedule.idleHourBudget {
            line += "; more than the \(PollSchedule.idleHourBudget) a default watch stays within: raise --interval"
        }
        return line
    }
}

/// Set from a signal handler: a second Ctrl-C exits at once.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false

    /// Raises the flag; returns true when it was already raised (a second Ctrl-C).
    func raise() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let was = raised
        raised = true
        return was
    }
}

/// Shows sync progress on the command's ``ProgressLine`` (only when stderr is a terminal):
/// the phase, changes done of how many, the rate and the time left.
struct SyncProgressPrinter: Sendable {
    let line: ProgressLine

    init(context: CommandContext) {
        line = ProgressLine.standardError("sync", context: context)
    }

    var callback: @Sendable (SyncProgress) -> Void {
        let line = self.line
        return { progress in
            if progress.phase == .done {
                line.finish()
                return
            }
            line.update(WorkProgress(task: progress.phase.rawValue, done: progress.completed, total: progress.total, unit: .items("changes")))
        }
    }
}
