import Ferry

/// `ferry conflicts <store> [--json]`: lists records whose concurrent versions wait for resolution.
enum ConflictsCommand: Command {
    static let spec = CommandSpec(
        name: "conflicts",
        abstract: "List conflicted records with each version's origin and time.",
        discussion: """
            The winner (a put beats a delete, then the latest clock stamp, then the higher replica id) is \
            the record file; each losing version is a file under conflicts/<Entity>/. Resolve with \
            'ferry resolve'. Exits 0 whether or not there are conflicts.
            """,
        arguments: [.required("store", help: "The store directory.")],
        options: [.flag("json", help: "Print JSON Lines, one conflicted record per line.")],
        examples: ["ferry conflicts ./laptop"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.requiredPositional("store")
        let store = try context.openStore(path)
        defer { store.close() }
        let conflicts = try store.conflicts()
        for conflict in conflicts {
            if arguments.flag("json") {
                context.printJSONLine(json(conflict))
                continue
            }
            context.stdout.line("\(conflict.key)")
            context.stdout.line("  winner \(describe(conflict.winner))")
            for loser in conflict.losers { context.stdout.line("  loser  \(describe(loser))") }
        }
        if conflicts.isEmpty && !arguments.flag("json") { context.stdout.line("no conflicts") }
        return .success
    }

    static func describe(_ version: ConflictSummary.Version) -> String {
        var text = "\(version.identity)  \(ISO8601Milliseconds.format(milliseconds: version.timestamp.physical))"
        if version.isDelete { text += "  (deleted)" }
        if let file = version.file { text += "  \(file)" }
        return text
    }

    static func json(_ conflict: ConflictSummary) -> JSONValue {
        func version(_ version: ConflictSummary.Version) -> JSONValue {
            [
                "version": .string("\(version.identity.origin.rawValue):\(version.identity.counter)"),
                "origin": .string(version.identity.origin.rawValue), "counter": .integer(Int64(version.identity.counter)),
                "hlc": .string(version.timestamp.description),
                "time": .string(ISO8601Milliseconds.format(milliseconds: version.timestamp.physical)),
                "deleted": .bool(version.isDelete), "file": version.file.map { .string($0) } ?? .null,
            ]
        }
        return [
            "entity": .string(conflict.key.entity.rawValue), "id": .string(conflict.key.id.rawValue),
            "winner": version(conflict.winner), "losers": .array(conflict.losers.map(version)),
        ]
    }
}
