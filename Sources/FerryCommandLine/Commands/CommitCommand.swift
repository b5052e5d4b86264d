import Ferry

/// `ferry commit <dir>`: journals hand edits of record files.
enum CommitCommand: Command {
    static let spec = CommandSpec(
        name: "commit",
        abstract: "Journal record files edited outside Ferry as changes from this replica.",
        discussion: """
            Every created, changed or deleted record file becomes an ordinary change, in one durable batch. \
            Files that are not valid JSON objects are reported and left untouched; the other edits still \
            commit (the command then exits 1).
            """,
        arguments: [.required("dir", help: "The store directory.")],
        options: [.flag("json", help: "Print one JSON object with what was committed.")],
        examples: ["ferry commit ./laptop"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.requiredPositional("dir")
        let store = try context.openStore(path)
        defer { store.close() }
        let progress = ProgressLine.standardError("commit", context: context, enabled: !arguments.flag("json"))
        let report = try progress.during { try store.commit(progress: $0) }
        if arguments.flag("json") {
            context.printJSONLine(EditReport.json(edits: report.committed, problems: report.problems))
        } else if report.committed.isEmpty && report.problems.isEmpty {
            context.stdout.line("nothing to commit")
        } else {
            EditReport.print(edits: report.committed, problems: report.problems, committed: true, context: context)
            context.stdout.line("committed \(report.committed.count) change\(report.committed.count == 1 ? "" : "s")")
        }
        for problem in report.problems { context.stderr.line("error: \(problem.path): \(problem.reason) (left untouched)") }
        return report.problems.isEmpty ? .success : .failure
    }
}
