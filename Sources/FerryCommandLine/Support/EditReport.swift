import Ferry

/// Prints the hand edits that `status` found and `commit` journaled.
enum EditReport {
    static func print(edits: [StoreStatus.Edit], problems: [StoreStatus.Problem], context: CommandContext) {
        for edit in edits {
            context.stdout.line("\(edit.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(edit.path)")
        }
        for problem in problems {
            context.stdout.line("invalid   \(problem.path): \(problem.reason)")
        }
    }

    static func json(edits: [StoreStatus.Edit], problems: [StoreStatus.Problem]) -> JSONValue {
        .object([
            "edits": .array(
                edits.map {
                    [
                        "kind": .string($0.kind.rawValue), "entity": .string($0.key.entity.rawValue),
                        "id": .string($0.key.id.rawValue), "path": .string($0.path),
                    ]
                }),
            "problems": .array(problems.map { ["path": .string($0.path), "reason": .string($0.reason)] }),
        ])
    }
}
