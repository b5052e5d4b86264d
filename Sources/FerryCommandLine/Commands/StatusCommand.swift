import Ferry

/// `ferry status <dir> [--json]`: lists record files edited behind Ferry's back.
enum StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status",
        abstract: "List record files created, changed or deleted outside Ferry.",
        discussion: """
            A file is compared by size, time and inode first, and by content when those differ (a 'touch' is \
            not a change). Files that are not valid JSON objects are listed with line and column. \
            'ferry commit' journals the edits. Exits 0 either way.
            """,
        arguments: [.required("dir", help: "The store directory.")],
        options: [.flag("json", help: "Print one JSON object with the edits and problems.")],
        examples: ["ferry status ./laptop"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.requiredPositional("dir")
        let store = try context.openStore(path)
        defer { store.close() }
        let progress = ProgressLine.standardError("status", context: context, enabled: !arguments.flag("json"))
        let status = try progress.during { try store.status(progress: $0) }
        switch status.search {
        case .watcher(let pid, let examined): context.detail("detail: examined \(examined) record file(s) the watcher (pid \(pid)) saw touched")
        case .scan(let reason): context.detail("detail: scanned every record file: \(reason)")
        }
        if arguments.flag("json") {
            context.printJSONLine(EditReport.json(edits: status.edits, problems: status.problems))
            return .success
        }
        if status.isClean {
            context.stdout.line("nothing to commit: record files match the journal")
            return .success
        }
        EditReport.print(edits: status.edits, problems: status.problems, context: context)
        if !status.edits.isEmpty { context.stdout.line("(run 'ferry commit \(path)' to journal these edits)") }
        return .success
    }
}
