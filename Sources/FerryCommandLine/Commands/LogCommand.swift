import Ferry

/// `ferry log`: the store's changes, newest first, filtered, one line each or JSON Lines.
enum LogCommand: Command {
    static let spec = CommandSpec(
        name: "log",
        abstract: "Show the journal's changes, newest first.",
        discussion: """
            One line per change: its sequence, when it was made (UTC), the replica that made it \
            (its name when known, else the first 8 characters of its id), put or delete, the \
            record, and which fields it changed (+ added, ~ changed, - removed; 'new:' when it \
            created the record).

            TIME is ISO 8601 (2026-11-21, 2026-11-21T20:30, 2026-11-21T20:30:00+01:00; UTC when \
            no zone is given) or a time ago: 30m, 2h, 3d, 1w. --since is inclusive, --until \
            exclusive; both compare the time each change was made.

            --json prints JSON Lines with every journal field (seq, origin, counter, hlc, op, \
            entity, id, doc, vv, pseq, prev, hash) plus time and originName:
              ferry log data --json | jq -r 'select(.op == "delete") | .id'
            """,
        arguments: [.optional("store", help: "The store directory (default: the current directory).")],
        options: [
            .value("entity", short: "e", valueName: "entity", help: "Only this entity's records."),
            .value("id", valueName: "id", help: "Only records with this id (fast: follows the record's chain)."),
            .value("origin", valueName: "replica", help: "Only changes made by this replica (name, id or id prefix)."),
            .value("since", valueName: "time", help: "Only changes made at or after TIME."),
            .value("until", valueName: "time", help: "Only changes made before TIME."),
            .value("op", valueName: "put|delete", help: "Only puts or only deletes."),
            .value("limit", short: "n", valueName: "n", help: "At most N changes (the newest)."),
            .flag("json", help: "Print JSON Lines with every journal field."),
        ],
        examples: ["ferry log ./laptop --entity Product"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let store = try context.openStore(arguments.positional("store") ?? ".")
        defer { store.close() }
        let names = store.replicaNames()
        let now = context.storeOptions().clock.milliseconds()
        var query = LogQuery()
        query.entity = try arguments.entityOption("entity")
        if let entity = query.entity { try context.requireKnownEntity(entity, in: store) }
        if let text = arguments.option("id") {
            do { query.id = try RecordID(text) } catch { throw arguments.usageError("--id: \(error.description)") }
        }
        if let text = arguments.option("origin") {
            do { query.origin = try names.resolve(text, among: store.knowledge.counters.keys) } catch {
                throw arguments.usageError("--origin: \(error.description)")
            }
        }
        query.since = try AuditText.timeOption(arguments, "since", now: now)
        query.until = try AuditText.timeOption(arguments, "until", now: now)
        if let text = arguments.option("op") {
            guard let operation = LogQuery.Operation(rawValue: text) else {
                throw arguments.usageError("--op expects put or delete, got '\(text)'")
            }
            query.operation = operation
        }
        query.limit = try arguments.integer("limit", in: 1...Int.max)

        let json = arguments.flag("json")
        if json {
            try store.log(query, fieldChanges: false) { item in
                context.printJSONLine(AuditText.entryJSON(item.entry, names: names))
                return true
            }
            // A last line, with no "seq": where older history went (ferry compact).
            if let archived = store.archivedHistory() { context.printJSONLine(["archived": archived.jsonValue]) }
            return .success
        }
        var page = LogPage(names: names, head: store.headSequence)
        try store.log(query) { item in
            page.items.append(item)
            if page.items.count >= LogPage.size { page.flush(to: context.stdout) }
            return true
        }
        page.flush(to: context.stdout)
        if let archived = store.archivedHistory() { context.stdout.line(archived.note) }
        for note in AuditText.joinNotes(try? store.snapshotJoins()) { context.stdout.line(note) }
        return .success
    }
}

/// Lines of `ferry log` for people, written a page at a time with aligned columns.
struct LogPage {
    static let size = 200
    let names: ReplicaNames
    let sequenceWidth: Int
    let originWidth: Int
    var items: [LogEntry] = []

    init(names: ReplicaNames, head: UInt64) {
        self.names = names
        sequenceWidth = String(head).count
        originWidth = names.widestLabel
    }

    mutating func flush(to output: OutputWriter) {
        guard !items.isEmpty else { return }
        let recordWidth = min(40, items.map { $0.entry.change.key.description.count }.max() ?? 0)
        var text = ""
        for item in items {
            let change = item.entry.change
            var line = AuditText.padLeft(String(item.entry.sequence), sequenceWidth) + "  "
            line += AuditText.time(change.timestamp.physical) + "  "
            line += AuditText.pad(names.label(for: change.origin), originWidth) + "  "
            line += AuditText.pad(change.operation.name, 6) + "  "
            let fields: String
            if change.isDelete {
                fields = ""
            } else if item.createsRecord {
                fields = AuditText.cut("new: " + (item.changes ?? []).map(\.pathText).joined(separator: ", "), 72)
            } else {
                fields = AuditText.fieldSummary(item.changes ?? [])
            }
            line += fields.isEmpty ? change.key.description : AuditText.pad(change.key.description, recordWidth) + "  " + fields
            text += line + "\n"
        }
        output.write(text)
        items.removeAll(keepingCapacity: true)
    }
}
