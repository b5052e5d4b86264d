import Ferry

/// `ferry reidentify <dir>`: gives a copied store a replica id of its own.
enum ReidentifyCommand: Command {
    static let spec = CommandSpec(
        name: "reidentify",
        abstract: "Give a copied store folder a new replica id, keeping every change it made.",
        discussion: """
            A store folder copied with cp -r (or restored from a backup or a VM snapshot) has the same replica \
            id as the original; once both change, a sync stops and says so. Run this on the copy: its history up \
            to what its sync checkpoints show was shared is kept as it is, the changes it made after that are \
            journaled again under a new replica id (they meet the original's changes as conflicts, never as \
            silent overwrites), and the folder as it was is kept beside it as <dir>.before-reidentify.
            Hand edits of record files are journaled first.
             ferry reidentify ./c2
             ferry reidentify ./c2 --shared-through 12
            """,
        arguments: [.required("dir", help: "The copied store directory.")],
        options: [
            .value(
                "shared-through", valueName: "counter",
                help: "The last change of this replica's own that others have (default: what its checkpoints show)."),
            .flag("json", help: "Print one JSON object with what was done."),
        ],
        examples: ["ferry reidentify ./laptop-copy"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = context.absolutePath(try arguments.requiredPositional("dir"))
        let shared = try arguments.integer("shared-through", in: 0...Int(Int64.max)).map { UInt64($0) }
        let report = try Store.reidentify(at: path, sharedThrough: shared, options: context.storeOptions())
        if arguments.flag("json") {
            context.printJSONLine(.object([
                "formerReplica": .string(report.formerReplica.rawValue), "newReplica": .string(report.newReplica.rawValue),
                "sharedThrough": .integer(Int64(report.sharedThrough)), "carriedOver": .integer(Int64(report.carriedOver)),
                "rejournaled": .integer(Int64(report.rejournaled)), "keptAt": .string(report.keptAt),
            ]))
        } else {
            context.stdout.line(
                "\(path) is now replica \(report.newReplica.short) (was \(report.formerReplica.short), which the original keeps)")
            context.stdout.line(
                "kept \(report.carriedOver) journal entries (changes 1–\(report.sharedThrough) of \(report.formerReplica.short) as shared history); "
                    + "journaled \(report.rejournaled) record\(report.rejournaled == 1 ? "" : "s") again under the new id")
            context.stdout.line("the folder as it was: \(report.keptAt) (delete it once the syncs look right)")
        }
        return .success
    }
}
