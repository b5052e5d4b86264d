import Ferry

/// `ferry compact <store>`: moves journal history older than a horizon into an archive folder.
enum CompactCommand: Command {
    static let spec = CommandSpec(
        name: "compact",
        abstract: "Move journal history older than --keep into a verifiable archive.",
        discussion: """
            Whole journal segments whose every entry is older than the horizon (now minus --keep) are \
            copied, byte for byte, into the archive folder (the store's archive/ unless --archive-to says \
            elsewhere) with a manifest of their hashes, and removed from journal/. Entries that are still a \
            record's current version (tombstones included) stay in journal/kept-<seq>/, so the store keeps \
            every record, conflict and version vector, and serves any peer. A tombstone is dropped only \
            once every peer this store has synced with has been sent the deletion.

            The archive may be moved away later: 'ferry verify' then checks the live journal alone and says \
            so. A peer that lacks archived changes is served from the archive when it is in place, or from \
            a snapshot of the state when it is not. Running compact again finishes one that was stopped.
             ferry compact ./notes                     # keep 90 days
             ferry compact ./notes --keep 30d --archive-to /mnt/cold/notes-archive
             ferry compact ./notes --keep 0 --dry-run
            """,
        arguments: [.required("store", help: "The store directory.")],
        options: [
            .value("keep", valueName: "duration", help: "How much recent history stays in journal/: 90d (default), 12h, 30m, 2w, 0."),
            .value("archive-to", valueName: "dir", help: "The archive folder (default: <store>/archive, or the one used last)."),
            .flag("dry-run", help: "Say what would be archived; change nothing."),
            .flag("json", help: "Print one JSON object with what was done."),
        ],
        examples: ["ferry compact ./laptop --keep 90d"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = context.absolutePath(try arguments.requiredPositional("store"))
        var options = CompactionOptions()
        if let text = arguments.option("keep") {
            guard let keep = CompactionOptions.parseDuration(text) else {
                throw UsageError("'--keep \(text)' is not a duration: write a number and a unit (s, m, h, d, w), such as 90d or 12h, or 0")
            }
            options.keep = keep
        }
        options.archiveFolder = arguments.option("archive-to").map { context.absolutePath($0) }
        options.dryRun = arguments.flag("dry-run")
        let store = try context.openStore(path)
        defer { store.close() }
        let progress = ProgressLine.standardError("compact", context: context, enabled: !arguments.flag("json"))
        let report = try progress.during { try store.compact(options, progress: $0) }
        if arguments.flag("json") {
            context.printJSONLine(report.jsonValue)
            return .success
        }
        let horizon = ISO8601Milliseconds.format(milliseconds: report.horizon)
        let verb = report.dryRun ? "would archive" : "archived"
        if report.archivedSegments.isEmpty {
            context.stdout.line("nothing to archive: no journal segment is entirely older than \(horizon)")
        } else {
            context.stdout.line(
                "\(verb) \(AuditText.plural(report.archivedSegments.count, "segment")) (\(AuditText.plural(report.archivedEntries, "entry", "entries")), "
                    + "\(ProgressLine.grouped(Int(clamping: report.archivedBytes))) bytes) older than \(horizon) to \(report.archivePath)")
            context.stdout.line(
                "journal/ \(report.dryRun ? "would start" : "starts") at seq \(report.firstLiveSequence) "
                    + "(\(AuditText.plural(report.liveSegments, "segment")) left); "
                    + "\(AuditText.plural(report.keptEntries, "current version")) kept in journal/kept-…"
                    + (report.droppedTombstones > 0 ? ", \(AuditText.plural(report.droppedTombstones, "tombstone")) every peer has seen dropped" : ""))
        }
        if report.finishedLeftovers > 0 {
            context.stdout.line("finished an interrupted compaction (\(AuditText.plural(report.finishedLeftovers, "leftover")) removed)")
        }
        return .success
    }
}
