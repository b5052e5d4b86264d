import Ferry

/// `ferry put <dir> <entity> [<id>] (--json TEXT | --file F | stdin)`: stores a record.
enum PutCommand: Command {
    static let spec = CommandSpec(
        name: "put",
        abstract: "Store a record (a JSON object) and print its id.",
        discussion: """
            The document comes from --json, --file, or standard input. Without <id>, Ferry makes a new UUID. \
            The write is durable (on disk) when the command exits 0. A hand edit of the record's file is \
            journaled first, with a note on stderr, so 'ferry show --history' keeps it; a hand-edited file that \
            is not valid JSON stops the put.
             ferry put ./data Product 42 --json '{"name": "Lamp", "price": 12.5}'
             cat user.json | ferry put ./data User
            """,
        arguments: [
            .required("dir", help: "The store directory."),
            .required("entity", help: "The entity (a letter, then letters, digits or _)."),
            .optional("id", help: "The record's id; a new UUID when absent."),
        ],
        options: [
            .value("json", valueName: "text", help: "The document as JSON text."),
            .value("file", valueName: "path", help: "Read the document from a file ('-' for standard input)."),
        ],
        examples: ["ferry put ./laptop Product 42 --json '{\"name\": \"Lamp\"}'"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.requiredPositional("dir")
        let entity = try arguments.entity()
        let id: RecordID? = arguments.positional("id") == nil ? nil : try arguments.recordID()
        if arguments.option("json") != nil && arguments.option("file") != nil {
            throw UsageError("give the document with --json or --file, not both")
        }
        let document = try DocumentInput.read(arguments: arguments, context: context)
        let store = try context.openStore(path)
        defer { store.close() }
        let written = id ?? RecordID.generate()
        let result = try store.write([.put(RecordKey(entity: entity, id: written), document)])
        context.noteJournaledEdits(result.journaledEdits, storeArgument: path)
        context.stdout.line(written.rawValue)
        return .success
    }
}
