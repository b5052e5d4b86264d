import Ferry

/// `ferry conflicts <store> [--json]`: lists records whose concurrent versions wait for resolution.
enum ConflictsCommand: Command {
    static let spec = CommandSpec(
        name: "conflicts",
        abstract: "List conflicted records with each version's origin and time.",
        discussion: """
            The winner (a put beats a delete, then the latest clock stamp, then the higher replica id) is \
            the record file; each losing version is a file under conflicts/<Entity>/. Resolve with \
            'ferry resolve'. Each version shows the replica that made it by name when known (else the first \
            8 characters of its id) and its change counter; --json adds originName. Exits 0 whether or not \
            there are conflicts.
            """,
        arguments: [.required("store", help: "The store directory.")],
        options: [.flag("json", help: "Print JSON Lines, one conflicted record per line.")],
        examples: ["ferry conflicts ./laptop"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.requiredPositional("store")
        let store = try context.openStore(path)
        defer { store.close() }
        let conflicts = try store.conflicts()
        let names = store.replicaNames()
        for conflict in conflicts {
            if arguments.flag("json") {
                context.printJSONLine(json(conflict, names: names))
                continue
            }
            context.stdout.line("\(conflict.key)")
            context.stdout.line("  winner \(describe(conflict.winner, names: names))")
            for loser in conflict.losers { context.stdout.line("  loser  \(describe(loser, names: names))") }
        }
        if conflicts.isEmpty && !arguments.flag("json") { context.stdout.line("no conflicts") }
        return .success
    }

    /// One version: who made it (its replica's name when known, else the id's first 8
    /// characters) and its counter, when, and where its file is.
    static func describe(_ version: ConflictSummary.Version, names: ReplicaNames) -> String {
        let identity = "\(names.label(for: version.identity.origin)):\(version.identity.counter)"
        var text = "\(identity)  \(ISO8601Milliseconds.format(milliseconds: version.timestamp.physical))"
        if version.isDelete { text += "  (deleted)" }
        if let file = version.file { text += "  \(file)" }
        return text
    }

    static func json(_ conflict: ConflictSummary, names: ReplicaNames) -> JSONValue {
        func version(_ version: ConflictSummary.Version) -> JSONValue {
            var value: JSONValue = [
                "version": .string("\(version.identity.origin.rawValue):\(version.identity.counter)"),
                "origin": .string(version.identity.origin.rawValue), "counter": .integer(Int64(version.identity.counter)),
                "hlc": .string(version.timestamp.description),
                "time": .string(ISO8601Milliseconds.format(milliseconds: version.timestamp.physical)),
                "deleted": .bool(version.isDelete), "file": version.file.map { .string($0) } ?? .null,
            ]
            // As in `ferry log --json`: the origin's name, when the store knows one.
            if let name = names.names[version.identity.origin] { value["originName"] = .string(name) }
            return value
        }
        return [
            "entity": .string(conflict.key.entity.rawValue), "id": .string(conflict.key.id.rawValue),
            "winner": version(conflict.winner), "losers": .array(conflict.losers.map(version)),
        ]
    }
}
