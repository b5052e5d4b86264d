import Ferry

/// `ferry list <dir> [<entity>] [--json]`: lists entities, or the ids of one entity.
enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List the entities of a store, or the records of one entity.",
        discussion: """
            Without <entity>: each entity with its number of live records. With <entity>: its record ids, \
            sorted; with --json, the records themselves as JSON Lines ({"id": …, "document": …}).
            """,
        arguments: [
            .required("dir", help: "The store directory."),
            .optional("entity", help: "The entity whose records to list."),
        ],
        options: [.flag("json", help: "Print JSON Lines: one object per record (or per entity), no line when there is none.")],
        examples: ["ferry list ./laptop Product"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.requiredPositional("dir")
        let json = arguments.flag("json")
        let store = try context.openStore(path)
        defer { store.close() }
        guard arguments.positional("entity") != nil else {
            for (entity, count) in try store.entities() {
                if json {
                    context.printJSONLine(["entity": .string(entity.rawValue), "count": .integer(Int64(count))])
                } else {
                    context.stdout.line("\(entity.rawValue)\t\(count)")
                }
            }
            return .success
        }
        let entity = try arguments.entity()
        try context.requireKnownEntity(entity, in: store)
        if json {
            try store.forEachRecord(of: entity) { id, document in
                context.printJSONLine(["id": .string(id.rawValue), "document": document])
                return true
            }
        } else {
            // Written as the ids are read, in pieces of 64 KiB: a million ids in flat memory.
            var pending: [UInt8] = []
            pending.reserveCapacity(1 << 16 + 512)
            try store.forEachID(of: entity) { id in
                pending.append(contentsOf: id.rawValue.utf8)
                pending.append(10)
                if pending.count >= 1 << 16 {
                    context.stdout.write(bytes: pending)
                    pending.removeAll(keepingCapacity: true)
                }
                return true
            }
            context.stdout.write(bytes: pending)
        }
        return .success
    }
}
