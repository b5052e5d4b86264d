import Ferry

/// Prints the hand edits that `status` found and `commit` journaled.
enum EditReport {
    /// - Parameter committed: the edits were journaled (a file named by hand was renamed),
    ///   rather than found.
    static func print(edits: [StoreStatus.Edit], problems: [StoreStatus.Problem], committed: Bool = false, context: CommandContext) {
        for edit in edits {
            var line = "\(edit.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(edit.path)"
            if let canonical = edit.canonicalPath {
                line += committed
                    ? " (record \"\(edit.key.id.rawValue)\", renamed to \(canonical))"
                    : " (record \"\(edit.key.id.rawValue)\"; ferry commit renames it to \(canonical))"
            }
            context.stdout.line(line)
        }
        for problem in problems {
            context.stdout.line("invalid   \(problem.path): \(problem.reason)")
        }
    }

    static func json(edits: [StoreStatus.Edit], problems: [StoreStatus.Problem]) -> JSONValue {
        .object([
            "edits": .array(
                edits.map { edit -> JSONValue in
                    var members: [String: JSONValue] = [
                        "kind": .string(edit.kind.rawValue), "entity": .string(edit.key.entity.rawValue),
                        "id": .string(edit.key.id.rawValue), "path": .string(edit.path),
                    ]
                    if let canonical = edit.canonicalPath { members["canonicalPath"] = .string(canonical) }
                    return .object(members)
                }),
            "problems": .array(problems.map { ["path": .string($0.path), "reason": .string($0.reason)] }),
        ])
    }
}
