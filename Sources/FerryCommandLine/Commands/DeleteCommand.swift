import Ferry

/// `ferry delete <dir> <entity> <id>`: deletes a record (a tombstone that syncs).
enum DeleteCommand: Command {
    static let spec = CommandSpec(
        name: "delete",
        abstract: "Delete a record, leaving a tombstone that syncs.",
        discussion: """
            The record's history stays in the journal ('ferry show --history'). A hand edit of the record's file \
            is journaled first, with a note on stderr; a hand-edited file that is not valid JSON stops the delete.
            """,
        arguments: [
            .required("dir", help: "The store directory."),
            .required("entity", help: "The entity."),
            .required("id", help: "The record's id."),
        ],
        options: [.flag("json", help: "Print one JSON object naming the deleted record.")],
        examples: ["ferry delete ./laptop Product 42"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.requiredPositional("dir")
        let entity = try arguments.entity()
        let id = try arguments.recordID()
        let store = try context.openStore(path)
        defer { store.close() }
        do { context.noteJournaledEdits(try store.delete(entity: entity, id: id).journaledEdits, storeArgument: path) } catch StoreError.recordNotFound(let key) {
            try context.requireKnownEntity(entity, in: store)
            throw StoreError.recordNotFound(key)
        }
        if arguments.flag("json") { context.printJSONLine(["deleted": .string(RecordKey(entity: entity, id: id).description)]) }
        return .success
    }
}
