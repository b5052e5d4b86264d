import Ferry

/// `ferry export <store> <entity> [<id>]`: prints records as the JSON an API expects.
enum ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Print an entity's records as the JSON an API expects.",
        discussion: """
            Writes an array of the entity's records (one object with <id>), keys in snake_case \
            by default, remote keys and key paths from schema.json, non-exportable fields left \
            out, missing fields as null and dates in ISO 8601.

            Examples:
              ferry export ./store User
              ferry export ./store User 7 --relationships array
              ferry export ./store User --relationships nested --scope 'userType = "admin"'
            """,
        arguments: [
            .required("store", help: "The store directory."),
            .required("entity", help: "The entity to export."),
            .optional("id", help: "Export only this record, as an object."),
        ],
        options: [
            .value("keys", valueName: "style", help: "snake, camel or asis.", default: "snake"),
            .value("relationships", valueName: "style", help: "none (ids), array (inline records) or nested (Rails _attributes).", default: "none"),
            .value("scope", valueName: "filter", help: "Only records matching the filter."),
            .flag("json", help: "Print JSON (what export always prints; for scripts that pass --json everywhere)."),
        ],
        examples: ["ferry export ./laptop User > users.json"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let entity = try arguments.entity()
        var options = ExportOptions()
        let keys = arguments.option("keys") ?? "snake"
        guard let keyStyle = ExportOptions.Keys(rawValue: keys) else {
            throw arguments.usageError("--keys expects snake, camel or asis, got '\(keys)'")
        }
        options.keys = keyStyle
        let relationships = arguments.option("relationships") ?? "none"
        guard let relationshipStyle = ExportOptions.Relationships(rawValue: relationships) else {
            throw arguments.usageError("--relationships expects none, array or nested, got '\(relationships)'")
        }
        options.relationships = relationshipStyle
        if let text = arguments.option("scope") {
            do { options.scope = try ImportFilter(parsing: text) } catch { throw ImportCommand.scopeUsageError(error, arguments: arguments) }
        }
        let store = try context.openStore(try arguments.requiredPositional("store"))
        defer { store.close() }
        try context.requireKnownEntity(entity, in: store)
        if arguments.positional("id") != nil {
            context.printJSON(try store.exportRecord(try arguments.recordID(), of: entity, options: options))
        } else {
            // Written as it is read, in pieces of 64 KiB: a million records in flat memory.
            // A progress line on a terminal, unless the records themselves go to it.
            let progress = ProgressLine.standardError(
                "export", context: context, enabled: !arguments.flag("json") && !context.stdoutIsTerminal)
            defer { progress.finish() }
            var writer = PrettyJSONArrayWriter()
            var pending: [UInt8] = []
            try store.exportRecords(of: entity, options: options, progress: progress.handler) { value in
                pending += writer.bytes(appending: value)
                if pending.count >= 1 << 16 {
                    context.stdout.write(bytes: pending)
                    pending.removeAll(keepingCapacity: true)
                }
            }
            context.stdout.write(bytes: pending + writer.closingBytes())
        }
        return .success
    }
}
