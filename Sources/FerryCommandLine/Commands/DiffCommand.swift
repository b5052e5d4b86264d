import Ferry

/// `ferry diff`: what differs between two replicas, or what a time window changed in one store.
/// Exits 0 when there is no difference, 1 when there is, 2 on error (as diff(1) does).
enum DiffCommand: Command {
    static let spec = CommandSpec(
        name: "diff",
        abstract: "Compare two replicas, or show what a time window changed.",
        discussion: """
            With two stores: the changes only the first has, the changes only the second has \
            (matched by their origin and counter), and the records whose current content \
            differs, field by field from the first to the second (+ only in the second, - only \
            in the first, ~ first → second). --full also compares every record file byte for \
            byte, which catches uncommitted hand edits.

            With one store and --since: the net effect of the changes made in the window on each \
            record (created, changed with its field diff, deleted), not every step in between. \
            TIME is ISO 8601 or a time ago (30m, 2h, 3d, 1w); --since is inclusive, --until \
            exclusive.

            Exit status: 0 no differences, 1 differences, 2 trouble.
            """,
        usage: [
            "ferry diff <store-a> <store-b> [--full] [--json]",
            "ferry diff <store> --since <time> [--until <time>] [--json]",
        ],
        arguments: [
            .required("store", help: "The (first) store directory."),
            .optional("other", help: "A second replica to compare with."),
        ],
        options: [
            .flag("full", help: "Also compare every record file's bytes."),
            .value("since", valueName: "time", help: "Show the net changes made from TIME on (one store)."),
            .value("until", valueName: "time", help: "End the window at TIME (default: now)."),
            .flag("json", help: "Print one JSON object."),
        ],
        examples: ["ferry diff ./laptop ./phone"])

    /// diff(1)'s status for trouble.
    static let trouble = ExitCode(rawValue: 2)

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let first = try arguments.requiredPositional("store")
        let second = arguments.positional("other")
        switch (second, arguments.option("since")) {
        case (nil, nil):
            throw arguments.usageError("give a second store to compare with, or --since for a time window")
        case (_?, _?):
            throw arguments.usageError("--since compares one store over time; give one store with it")
        default:
            break
        }
        if second != nil, arguments.option("until") != nil {
            throw arguments.usageError("--until needs --since and one store")
        }
        if second == nil, arguments.flag("full") {
            throw arguments.usageError("--full compares two stores")
        }
        do {
            if let second {
                return try compare(first, second, arguments: arguments, context: context)
            }
            return try window(first, arguments: arguments, context: context)
        } catch let error as UsageError {
            throw error
        } catch {
            throw CLIError(ErrorReporter.message(for: error), exitCode: trouble)
        }
    }

    // MARK: Two replicas

    private static func compare(_ firstPath: String, _ secondPath: String, arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let first = try context.openStore(firstPath)
        defer { first.close() }
        let second = try context.openStore(secondPath)
        defer { second.close() }
        let comparison = try first.compare(with: second, includingFiles: arguments.flag("full"))
        let names = ReplicaNames(first.replicaNames().names.merging(second.replicaNames().names) { own, _ in own })
        if arguments.flag("json") {
            context.printJSONLine(json(comparison, first: first, second: second, names: names))
        } else {
            let (firstLabel, secondLabel) = labels(first, firstPath, second, secondPath)
            context.stdout.write(text(comparison, first: firstLabel, second: secondLabel, names: names))
        }
        return comparison.isIdentical ? .success : .failure
    }

    private static func label(_ store: Store, _ path: String) -> String {
        store.manifest.name ?? path
    }

    /// Labels for the two stores: their names, or their paths when the names do not tell them apart.
    private static func labels(_ first: Store, _ firstPath: String, _ second: Store, _ secondPath: String) -> (String, String) {
        let (a, b) = (label(first, firstPath), label(second, secondPath))
        return a == b ? (firstPath, secondPath) : (a, b)
    }

    static func text(_ comparison: ReplicaComparison, first: String, second: String, names: ReplicaNames) -> String {
        if comparison.isIdentical {
            return "identical: \(first) and \(second) have the same changes and the same records"
                + (comparison.comparedFiles ? " and record files" : "") + "\n"
        }
        var text = ""
        for diverged in comparison.divergedReplicas {
            text += "diverged: both hold a different change \(diverged.counter) of replica \(names.label(for: diverged.origin)) "
                + "(one store is a copy of the other's folder; run 'ferry reidentify' on the copy)\n"
        }
        for (entries, name) in [(comparison.onlyInFirst, first), (comparison.onlyInSecond, second)] where !entries.isEmpty {
            text += "only in \(name): \(AuditText.plural(entries.count, "change"))\n"
            let width = entries.map { String($0.sequence).count }.max() ?? 1
            let originWidth = entries.map { identity($0, names).count }.max() ?? 1
            for entry in entries {
                text += "  " + AuditText.padLeft(String(entry.sequence), width) + "  " + AuditText.time(entry.change.timestamp.physical)
                text += "  " + AuditText.pad(identity(entry, names), originWidth) + "  "
                text += AuditText.pad(entry.change.operation.name, 6) + "  " + entry.change.key.description + "\n"
            }
        }
        if !comparison.records.isEmpty {
            text += "records that differ (\(first) → \(second)): \(comparison.records.count)\n"
            for record in comparison.records {
                var line = "  \(record.key)"
                if record.first.document == nil || record.second.document == nil {
                    line += ": \(record.first.name) in \(first), \(record.second.name) in \(second)"
                }
                text += line + "\n"
                for change in record.changes { text += "      " + AuditText.change(change) + "\n" }
            }
        }
        if !comparison.files.isEmpty {
            text += "record files that differ: \(comparison.files.count)\n"
            for file in comparison.files {
                let what: String
                switch file.kind {
                case .onlyInFirst: what = "only in \(first)"
                case .onlyInSecond: what = "only in \(second)"
                case .contentDiffers: what = "content differs"
                }
                text += "  \(file.path): \(what)\n"
            }
        }
        return text
    }

    private static func identity(_ entry: JournalEntry, _ names: ReplicaNames) -> String {
        "\(names.label(for: entry.change.origin)):\(entry.change.counter)"
    }

    static func json(_ comparison: ReplicaComparison, first: Store, second: Store, names: ReplicaNames) -> JSONValue {
        func side(_ store: Store) -> JSONValue {
            var value: JSONValue = ["path": .string(store.path), "replica": .string(store.replicaID.rawValue)]
            if let name = store.manifest.name { value["name"] = .string(name) }
            return value
        }
        let records: [JSONValue] = comparison.records.map { record in
            [
                "entity": .string(record.key.entity.rawValue), "id": .string(record.key.id.rawValue),
                "first": .string(record.first.name), "second": .string(record.second.name),
                "changes": .array(record.changes.map(\.jsonValue)),
            ]
        }
        var value: JSONValue = [
            "identical": .bool(comparison.isIdentical), "first": side(first), "second": side(second),
            "divergedReplicas": .array(comparison.divergedReplicas.map { .string("\($0.origin.rawValue):\($0.counter)") }),
            "onlyInFirst": .array(comparison.onlyInFirst.map { AuditText.entryJSON($0, names: names) }),
            "onlyInSecond": .array(comparison.onlyInSecond.map { AuditText.entryJSON($0, names: names) }),
            "records": .array(records),
        ]
        if comparison.comparedFiles {
            value["files"] = .array(comparison.files.map { ["path": .string($0.path), "kind": .string($0.kind.rawValue)] })
        }
        return value
    }

    // MARK: A time window

    private static func window(_ path: String, arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let store = try context.openStore(path)
        defer { store.close() }
        let now = context.storeOptions().clock.milliseconds()
        guard let since = try AuditText.timeOption(arguments, "since", now: now) else {
            throw arguments.usageError("missing --since")
        }
        let until = try AuditText.timeOption(arguments, "until", now: now)
        let changes: [NetChange]
        do { changes = try store.netChanges(since: since, until: until) } catch {
            if case .emptyWindow = error { throw arguments.usageError(error.description) }
            throw error
        }
        let end = until.map { AuditText.time($0.milliseconds) } ?? "now"
        if arguments.flag("json") {
            let records: [JSONValue] = changes.map { change in
                var value: JSONValue = [
                    "entity": .string(change.key.entity.rawValue), "id": .string(change.key.id.rawValue),
                    "change": .string(change.kind.rawValue), "steps": .integer(Int64(change.steps)),
                    "changes": .array(change.changes.map(\.jsonValue)),
                ]
                if let before = change.before { value["before"] = before }
                if let after = change.after { value["after"] = after }
                return value
            }
            var value: JSONValue = [
                "since": .string(since.description), "identical": .bool(changes.isEmpty), "records": .array(records),
            ]
            value["until"] = until.map { .string($0.description) } ?? .null
            context.printJSONLine(value)
        } else if changes.isEmpty {
            context.stdout.line("no net changes from \(AuditText.time(since.milliseconds)) to \(end)")
        } else {
            var text = "net changes from \(AuditText.time(since.milliseconds)) to \(end): \(AuditText.plural(changes.count, "record"))\n"
            let width = changes.map { $0.key.description.count }.max() ?? 0
            for change in changes {
                var line = "  " + AuditText.pad(change.kind.rawValue, 7) + "  " + AuditText.pad(change.key.description, width)
                if change.steps > 1 { line += "  (\(change.steps) changes)" }
                text += line.trimmingTrailingSpaces() + "\n"
                if change.kind != .deleted {
                    for field in change.changes { text += "      " + AuditText.change(field) + "\n" }
                }
            }
            context.stdout.write(text)
        }
        return changes.isEmpty ? .success : .failure
    }
}

extension String {
    /// The string without trailing spaces.
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
