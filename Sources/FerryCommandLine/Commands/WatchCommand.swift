import Ferry

/// `ferry watch <dir>`: a daemon that tells `status` and `sync` which record files changed,
/// so that they look at those and not the whole tree.
enum WatchCommand: Command {
    static let spec = CommandSpec(
        name: "watch",
        abstract: "Keep track of edited record files, so that status and sync need not scan (until Ctrl-C).",
        discussion: """
            Runs until SIGINT or SIGTERM, watching the store with the kernel's file events (inotify) and \
            publishing in .ferry/watch/ which record files were touched since the last 'ferry status' or \
            sync. While it runs, 'ferry status', 'ferry commit' and a default 'ferry sync' of this store \
            examine only those files (-v on status says how many). If it stops, dies or loses events, they \
            scan the whole store, as without it: never a wrong answer. Prints one line when ready; -v \
            says each publish. See docs/DEPLOY.md for a systemd user unit and a launchd agent.
            """,
        arguments: [.required("dir", help: "The store directory.")],
        examples: ["ferry watch ./laptop", "ferry watch ~/notes > watch.log"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.requiredPositional("dir")
        let store = try context.openStore(path)
        let stderr = context.stderr
        let verbosity = context.verbosity
        let monitor: HandEditMonitor
        do {
            monitor = try store.startHandEditMonitor { event in
                switch event {
                case .published(let sequence, let records):
                    if verbosity == .verbose { stderr.line("detail: published #\(sequence): \(records) record file(s) touched since the last status") }
                case .restarted(let reason):
                    if verbosity != .quiet { stderr.line("note: \(reason); the next status scans once") }
                case .publishFailed(let error):
                    stderr.line("warning: cannot publish what changed (\(error)); status scans until this passes")
                }
            }
        } catch {
            store.close()
            throw error
        }
        // The monitor needs only the store's path: the index need not stay in memory.
        store.close()
        let (stops, stop) = AsyncStream.makeStream(of: Int32.self)
        let signals = TerminationSignals { stop.yield($0) }
        defer { signals.cancel() }
        context.stdout.line("ferry watch: watching \(path) (pid \(monitor.processID)); status and sync now examine only the files that changed")
        var waiting = stops.makeAsyncIterator()
        let number = await waiting.next()
        monitor.stop()
        if verbosity != .quiet { stderr.line("ferry watch: stopped (signal \(number ?? 0))") }
        return .success
    }
}
