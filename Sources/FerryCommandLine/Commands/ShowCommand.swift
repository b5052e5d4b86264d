import Ferry

/// `ferry show`: a record's current JSON, or its whole history with field diffs.
enum ShowCommand: Command {
    static let spec = CommandSpec(
        name: "show",
        abstract: "Show a record, or its history with field-level diffs.",
        discussion: """
            Without --history, prints the record's current document. With --history, prints \
            every version the journal holds, oldest first: its sequence, time (UTC), the replica \
            that made it, and what it changed compared with the record just before (+ added, \
            - removed, ~ changed with old → new; nested objects by path such as address.city; \
            arrays are compared whole). Deleted records keep their history.
            """,
        arguments: [
            .required("store", help: "The store directory."),
            .required("entity", help: "The record's entity."),
            .required("id", help: "The record's id."),
        ],
        options: [
            .flag("history", help: "Show every version with its diff from the version before."),
            .flag("json", help: "Print JSON: the document on one line, or with --history one object with every version."),
        ],
        examples: ["ferry show ./laptop Product 42 --history"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let store = try context.openStore(try arguments.requiredPositional("store"))
        defer { store.close() }
        let key = RecordKey(entity: try arguments.entity(), id: try arguments.recordID())
        let names = store.replicaNames()
        if !arguments.flag("history") {
            guard let document = try store.get(entity: key.entity, id: key.id) else {
                guard let state = try store.state(of: key) else { throw StoreError.recordNotFound(key) }
                let winner = state.winner
                throw CLIError(
                    "\(key) was deleted by \(names.label(for: winner.identity.origin)) at "
                        + "\(AuditText.time(winner.timestamp.physical)) (seq \(winner.sequence)); see 'ferry show --history'")
            }
            if arguments.flag("json") { context.printJSONLine(document) } else { context.printJSON(document) }
            return .success
        }
        let history = try store.history(of: key)
        let archived = store.archivedHistory()
        if arguments.flag("json") {
            var value = json(history, names: names)
            value["archived"] = archived?.jsonValue ?? .null
            context.printJSONLine(value)
        } else {
            context.stdout.write(text(history, names: names))
            if let archived { context.stdout.line(archived.note) }
            for note in AuditText.joinNotes(try? store.snapshotJoins()) { context.stdout.line(note) }
        }
        return .success
    }

    /// The history for people.
    static func text(_ history: RecordHistory, names: ReplicaNames) -> String {
        let state = history.current == nil ? "deleted" : (history.isConflicted ? "live, conflicted" : "live")
        var text = "\(history.key): \(AuditText.plural(history.versions.count, "version")), \(state)\n"
        let sequenceWidth = history.versions.map { String($0.entry.sequence).count }.max() ?? 1
        let originWidth = history.versions.map { names.label(for: $0.entry.change.origin).count }.max() ?? 8
        for version in history.versions {
            let change = version.entry.change
            var line = "seq " + AuditText.padLeft(String(version.entry.sequence), sequenceWidth) + "  "
            line += AuditText.time(change.timestamp.physical) + "  "
            line += AuditText.pad(names.label(for: change.origin), originWidth) + "  "
            line += change.operation.name
            switch version.outcome {
            case .applied: break
            case .conflict: line += "  (concurrent; lost the tie-break, kept as a conflict)"
            case .superseded: line += "  (already superseded when received)"
            }
            text += line + "\n"
            for field in version.changes { text += "    " + AuditText.change(field) + "\n" }
        }
        return text
    }

    /// The history for scripts.
    static func json(_ history: RecordHistory, names: ReplicaNames) -> JSONValue {
        let versions: [JSONValue] = history.versions.map { version in
            var value = AuditText.entryJSON(version.entry, names: names)
            value["outcome"] = .string(version.outcome.rawValue)
            value["changes"] = .array(version.changes.map(\.jsonValue))
            return value
        }
        return [
            "entity": .string(history.key.entity.rawValue), "id": .string(history.key.id.rawValue),
            "live": .bool(history.current != nil), "conflicted": .bool(history.isConflicted),
            "current": history.current ?? .null, "versions": .array(versions),
        ]
    }
}
