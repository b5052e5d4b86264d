import Ferry

/// How the audit commands (`log`, `show`, `diff`, `verify`) write times, values and field
/// changes for people, and read times and replicas from the command line.
enum AuditText {
    /// `2026-11-21T20:34:43Z`: the second a change was made, in UTC.
    static func time(_ milliseconds: UInt64) -> String {
        let full = ISO8601Milliseconds.format(milliseconds: milliseconds)
        return String(full.prefix(19)) + "Z"
    }

    /// A JSON value in canonical form, cut to `limit` characters with `…`.
    static func value(_ value: JSONValue?, limit: Int = 60) -> String {
        guard let value else { return "" }
        return cut(value.canonicalText, limit)
    }

    /// `text` cut to `limit` characters with `…`.
    static func cut(_ text: String, _ limit: Int) -> String {
        text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }

    /// `+ path: new`, `- path: old` or `~ path: old → new`.
    static func change(_ change: FieldChange) -> String {
        switch change.kind {
        case .added: return "+ \(change.pathText): \(value(change.new))"
        case .removed: return "- \(change.pathText): \(value(change.old))"
        case .changed: return "~ \(change.pathText): \(value(change.old)) → \(value(change.new))"
        }
    }

    /// The changed fields in one short column: `~price +color -size`, cut at `limit`.
    static func fieldSummary(_ changes: [FieldChange], limit: Int = 72) -> String {
        var text = ""
        for change in changes {
            let mark: String
            switch change.kind {
            case .added: mark = "+"
            case .removed: mark = "-"
            case .changed: mark = "~"
            }
            let piece = (text.isEmpty ? "" : " ") + mark + change.pathText
            if text.count + piece.count > limit {
                text += " …"
                break
            }
            text += piece
        }
        return text
    }

    /// `text` padded with spaces to `width` characters.
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// `text` right-aligned in `width` characters.
    static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// `1,234,567`.
    static func count(_ number: Int) -> String {
        let digits = String(number)
        var result = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return result
    }

    /// `1 change` / `2 changes`.
    static func plural(_ number: Int, _ noun: String, _ plural: String? = nil) -> String {
        "\(count(number)) \(number == 1 ? noun : plural ?? noun + "s")"
    }

    /// The time option `name`, parsed; a bad one is a usage error.
    static func timeOption(_ arguments: ParsedArguments, _ name: String, now: UInt64) throws -> AuditTime? {
        guard let text = arguments.option(name) else { return nil }
        do { return try AuditTime(parsing: text, now: now) } catch {
            throw arguments.usageError("--\(name): \(error.description)")
        }
    }

    /// A change's JSON for scripts: the entry's journal fields plus `time` (ISO 8601) and
    /// `originName` when the replica has a name.
    static func entryJSON(_ entry: JournalEntry, names: ReplicaNames) -> JSONValue {
        var value = entry.jsonValue
        value["time"] = .string(ISO8601Milliseconds.format(milliseconds: entry.change.timestamp.physical))
        if let name = names.names[entry.change.origin] { value["originName"] = .string(name) }
        return value
    }

    /// One line per snapshot join of the store: its history before the join is not here, and
    /// where it is (for `log` and `show --history`, whose first entries would otherwise read
    /// as the records' creation).
    static func joinNotes(_ base: SnapshotJoins??) -> [String] {
        guard case .some(.some(let base)) = base else { return [] }
        return base.joins.map { join in
            let point = join.position.map { "as of its journal entry \($0)" } ?? "from snapshot \(join.snapshot.hex.prefix(12))"
            let there = join.position == nil ? "the hub's segments hold it ('ferry verify \(join.location)')" : "'ferry log \(join.location)' shows it"
            return "note: entries up to seq \(join.sequence) are the state joined from \(join.location) \(point), "
                + "not the records' history; \(there)"
        }
    }
}
