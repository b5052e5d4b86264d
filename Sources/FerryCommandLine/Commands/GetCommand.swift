import Ferry

/// `ferry get <dir> <entity> <id>`: prints a record.
enum GetCommand: Command {
    static let spec = CommandSpec(
        name: "get",
        abstract: "Print a record's current JSON document.",
        discussion: "Exits 1 with an error when there is no such record (or it was deleted).",
        arguments: [
            .required("dir", help: "The store directory."),
            .required("entity", help: "The entity."),
            .required("id", help: "The record's id."),
        ],
        options: [
            .flag("compact", help: "Print on one line (canonical form) instead of pretty."),
            .flag("json", help: "Print the document as JSON (what get always prints; for scripts that pass --json everywhere)."),
        ],
        examples: ["ferry get ./laptop Product 42"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.requiredPositional("dir")
        let entity = try arguments.entity()
        let id = try arguments.recordID()
        let store = try context.openStore(path)
        defer { store.close() }
        guard let document = try store.get(entity: entity, id: id) else {
            try context.requireKnownEntity(entity, in: store)
            throw StoreError.recordNotFound(RecordKey(entity: entity, id: id))
        }
        if arguments.flag("compact") { context.printJSONLine(document) } else { context.printJSON(document) }
        return .success
    }
}
