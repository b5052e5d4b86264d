import Ferry

/// `ferry import <store> <entity> <file|->`: makes an entity's records match a JSON array.
enum ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Make an entity's records match a JSON array from an API.",
        discussion: """
            Items whose id is not stored are inserted, changed ones updated, and stored records \
            that the array no longer names are deleted (only those matching --scope, when given). \
            Nested objects become linked records of their own. Records whose values did not change \
            are not written. Every item is checked before anything is written: an error anywhere \
            writes nothing and names the item (array index and key path). A large array of items \
            (at the top level or at --path) is read as a stream and written in batches, in flat \
            memory; items that link records stream when no batch touches a record another writes, \
            and are otherwise read whole (up to 1 GiB). The store's schema.json, when present, gives \
            keys, types and relationships (see docs/IMPORT.md); an entity it does not declare is refused.
            An import that would delete more than --max-delete of an entity's records (one page of a \
            longer list, say) stops before writing anything and says so; --force goes ahead. An input \
            object that wraps the array ({"data": [...]}) is named with --path data. A record file \
            edited by hand that the import would replace is journaled first and named in the report.

            Examples:
              ferry import ./store User users.json
              ferry import ./store User users.json --dry-run
              curl -s https://api.example.com/notes | ferry import ./store Note - --parent User/6
              ferry import ./store User users.json --scope 'companyID = "3"' --only insert,update
            """,
        arguments: [
            .required("store", help: "The store directory."),
            .required("entity", help: "The entity the items belong to."),
            .required("file", help: "A JSON file holding an array of items (or one item); '-' reads standard input."),
        ],
        options: [
            .value("scope", valueName: "filter", help: "Only stored records matching the filter may be updated or deleted."),
            .value("parent", valueName: "entity/id", help: "Import the children of one record, diffing only its children."),
            .value("only", valueName: "operations", help: "Any of insert,update,delete; the rest is reported as withheld."),
            .value("keys", valueName: "convention", help: "camel or asis: how keys are stored, overriding schema.json."),
            .value("path", valueName: "key[.key]", help: "Where the array of items is inside an input object ('data', 'response.items')."),
            .flag("force", help: "Allow an import that deletes more than --max-delete of an entity's records."),
            .value("max-delete", valueName: "percent", help: "The largest share of an entity's records one import may delete.", default: "50"),
            .flag("dry-run", help: "Show what would change without writing."),
            .flag("json", help: "Print the report as JSON."),
        ],
        examples: ["ferry import ./laptop User users.json --dry-run"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let entity = try arguments.entity()
        var options = ImportOptions()
        options.isDryRun = arguments.flag("dry-run")
        if let text = arguments.option("scope") {
            do { options.scope = try ImportFilter(parsing: text) } catch { throw ImportCommand.scopeUsageError(error, arguments: arguments) }
        }
        if let text = arguments.option("only") {
            do { options.operations = try ImportOperations(parsing: text) } catch { throw arguments.usageError("--only: \(error)") }
        }
        if let text = arguments.option("keys") {
            guard let keys = KeyConvention(rawValue: text) else {
                throw arguments.usageError("--keys expects camel or asis, got '\(text)'")
            }
            options.keys = keys
        }
        if let text = arguments.option("parent") {
            options.parent = try parentKey(text, arguments: arguments)
        }
        if let text = arguments.option("path") {
            let path = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !path.contains(where: \.isEmpty) else { throw arguments.usageError("--path expects keys separated by dots, got '\(text)'") }
            options.path = path
        }
        options.allowsMassDeletion = arguments.flag("force")
        options.maximumDeletionShare = Double(try arguments.integer("max-delete", in: 0...100) ?? 50) / 100
        let file = try arguments.requiredPositional("file")
        let store = try context.openStore(try arguments.requiredPositional("store"))
        defer { store.close() }
        // Standard input is kept in a file of the store's while the import reads it (twice,
        // when it is a large array), so that it is never held in memory whole.
        let input: ImportInput
        var spool: String?
        defer { if let spool { try? FileSystem.removeFile(spool) } }
        if file == "-" {
            let path = store.layout.engine + "/import-input-\(RecordID.generate().rawValue)"
            spool = path
            try Self.spool(context.stdin, to: path)
            input = .file(path)
        } else {
            input = .file(context.absolutePath(file))
        }
        if let schema = try store.schema(), schema.entity(named: entity.rawValue) == nil {
            let declared = schema.entities.keys.map(\.rawValue).sorted()
            let suggestion = NameSuggestion.closest(to: entity.rawValue, among: declared).map { "; did you mean \($0)?" } ?? ""
            throw CLIError(
                "schema.json declares no entity \(entity.rawValue)\(suggestion) (it declares \(declared.joined(separator: ", "))); "
                    + "add it to schema.json to import it")
        }
        // A progress line on a terminal: the input checked, then the records written.
        let progress = ProgressLine.standardError("import", context: context, enabled: !arguments.flag("json"))
        options.progress = progress.handler
        let inputName = file == "-" ? "standard input" : file
        let inputSize = spool ?? (file == "-" ? nil : context.absolutePath(file))
        let sizeText = inputSize.flatMap { try? FileSystem.status($0)?.size }.map { " (\(ProgressLine.megabytes(Double($0))))" } ?? ""
        options.readingWholeNote = { reason in
            progress.note("note: reading \(inputName)\(sizeText) whole instead of streaming it, so memory and time grow with it: \(reason)")
        }
        let report: ImportReport
        do {
            defer { progress.finish() }
            report = try store.importRecords(from: input, into: entity, options: options)
        }
        if arguments.flag("json") {
            context.printJSON(report.jsonValue)
        } else {
            context.stdout.write(text(of: report))
        }
        return .success
    }

    /// Copies standard input into a new file at `path`, 1 MiB at a time.
    static func spool(_ input: InputReader, to path: String) throws(SystemError) {
        let file = try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate])
        try file.closeAfter { () throws(SystemError) in
            while true {
                let chunk = try input.read(upTo: 1 << 20)
                if chunk.isEmpty { return }
                try file.writeAll(chunk)
            }
        }
    }

    /// A malformed `--scope` as a usage error on one line: `scope: expected an operator at column
    /// 12 in 'firstName  12'` (the error reporter prints one line, so no caret line).
    static func scopeUsageError(_ error: ImportError, arguments: ParsedArguments) -> UsageError {
        guard case .invalidScope(let expression, let column, let message) = error else {
            return arguments.usageError(error.description)
        }
        return arguments.usageError("scope: \(message) at column \(column) in '\(expression)'")
    }

    /// `User/6` as a record key.
    static func parentKey(_ text: String, arguments: ParsedArguments) throws -> RecordKey {
        guard let slash = text.firstIndex(of: "/") else {
            throw arguments.usageError("--parent expects ENTITY/ID, such as User/6, got '\(text)'")
        }
        do {
            return RecordKey(
                entity: try EntityName(String(text[..<slash])), id: try RecordID(String(text[text.index(after: slash)...])))
        } catch {
            throw arguments.usageError("--parent: \(error)")
        }
    }

    /// The report for people: the plan's lines on a dry run, then one summary line per entity,
    /// skipped items and missing link targets.
    static func text(of report: ImportReport) -> String {
        var lines: [String] = []
        if report.isDryRun {
            lines.append("dry run: nothing written")
            for change in report.changes {
                switch change.kind {
                case .insert: lines.append("+ \(change.key)")
                case .update: lines.append("~ \(change.key) (\(change.changedKeys.joined(separator: ", ")))")
                case .delete: lines.append("- \(change.key)")
                }
            }
        }
        lines += report.summaryLines
        for refusal in report.refusals { lines.append("would refuse: \(refusal)") }
        let verb = report.isDryRun ? "would journal" : "journaled"
        for path in report.handEdits {
            lines.append("\(verb) the hand edit of \(path) first (ferry show --history keeps it)")
        }
        for skipped in report.skipped {
            let place = skipped.keyPath.isEmpty ? "item [\(skipped.index)]" : "item [\(skipped.index)] \(skipped.keyPath)"
            lines.append("skipped \(place): \(skipped.reason)")
        }
        for missing in report.missingTargets {
            lines.append("not linked: item [\(missing.index)] \(missing.keyPath): no record \(missing.target)")
        }
        let withheld = report.withheld
        if !withheld.isEmpty {
            lines.append(
                "withheld by --only: \(withheld.inserts.count) inserts, \(withheld.updates.count) updates, \(withheld.deletes.count) deletes")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
