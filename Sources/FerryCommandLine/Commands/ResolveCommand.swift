import Ferry

/// `ferry resolve <store> <entity> <id> (--take VERSION|FILE | --file F)`.
enum ResolveCommand: Command {
    static let spec = CommandSpec(
        name: "resolve",
        abstract: "Resolve a conflict with one version, a conflict file, or your own document.",
        discussion: """
            Writes a version that descends from every conflicting version, so it propagates and clears the \
            conflict on every replica. --take accepts 'winner', a version as 'ferry conflicts' prints it \
            (<origin prefix>:<counter>), or the path of one of that record's conflict files; --file takes a JSON document you \
            merged by hand.
             ferry resolve ./laptop Product 42 --take 5b2c9e1a:17
             ferry resolve ./laptop Product 42 --file merged.json
            """,
        arguments: [
            .required("store", help: "The store directory."),
            .required("entity", help: "The entity."),
            .required("id", help: "The record's id."),
        ],
        options: [
            .value("take", valueName: "version-or-file", help: "The version to keep."),
            .value("file", valueName: "path", help: "A JSON file with the resolved document."),
            .flag("json", help: "Print one JSON object naming the resolved record."),
        ],
        examples: ["ferry resolve ./laptop Product 42 --file merged.json"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.requiredPositional("store")
        let key = RecordKey(entity: try arguments.entity(), id: try arguments.recordID())
        let take = arguments.option("take")
        let file = arguments.option("file")
        guard (take == nil) != (file == nil) else { throw UsageError("give exactly one of --take and --file") }
        let store = try context.openStore(path)
        defer { store.close() }
        let versions = try store.versions(of: key)
        guard let state = try store.state(of: key), state.isConflicted else { throw StoreError.noConflict(key) }
        var document: JSONValue?
        if let file {
            document = try DocumentInput.parse(FileSystem.readFile(context.absolutePath(file), limit: 64 << 20), source: file)
        } else if let take {
            document = try choose(take, of: key, versions: versions, store: store, context: context)
        }
        context.noteJournaledEdits(try store.resolve(key, with: document).journaledEdits, storeArgument: path)
        if arguments.flag("json") {
            context.printJSONLine(["resolved": .string(key.description)])
        } else {
            context.stdout.line("resolved \(key)")
        }
        return .success
    }

    /// The document of the version `take` names (nil for a delete).
    static func choose(
        _ take: String, of key: RecordKey, versions: [(version: RecordVersion, document: JSONValue?)], store: Store,
        context: CommandContext
    ) throws -> JSONValue? {
        if take == "winner", let first = versions.first { return first.document }
        let pieces = take.split(separator: ":")
        if pieces.count == 2, let counter = UInt64(pieces[1]) {
            let prefix = String(pieces[0]).lowercased()
            let matches = versions.filter { $0.version.identity.origin.rawValue.hasPrefix(prefix) && $0.version.identity.counter == counter }
            guard matches.count == 1 else {
                let known = versions.map { $0.version.identity.description }.joined(separator: ", ")
                throw UsageError("--take \(take) matches \(matches.count) versions; the versions are \(known)")
            }
            return matches[0].document
        }
        let candidate = take.hasPrefix("/") ? take : (FileSystem.exists(context.absolutePath(take)) ? context.absolutePath(take) : store.path + "/" + take)
        guard FileSystem.exists(candidate) else {
            throw UsageError("--take expects 'winner', <origin prefix>:<counter>, or a conflict file; '\(take)' is none of them")
        }
        // Only a conflict file of this very record: another record's would give it that
        // record's losing version.
        let own = versions.dropFirst().filter { !$0.version.isDelete }.map { store.layout.conflictFile(key, version: $0.version.identity) }
        guard let taken = try FileSystem.status(candidate), own.contains(where: { path in
            FileSystem.lastComponent(of: path) == FileSystem.lastComponent(of: candidate)
                && (try? FileSystem.status(path))??.inode == taken.inode
        }) else {
            let listed = own.map { $0.hasPrefix(store.path + "/") ? String($0.dropFirst(store.path.count + 1)) : $0 }
                .joined(separator: ", ")
            throw UsageError(
                "--take \(take) is not a conflict file of \(key) (its conflict files: \(listed.isEmpty ? "none" : listed)); "
                    + "to resolve with a document of your own, use --file")
        }
        return try DocumentInput.parse(FileSystem.readFile(candidate, limit: 64 << 20), source: take)
    }
}
