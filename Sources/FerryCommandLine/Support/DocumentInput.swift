import Ferry

/// Reads the JSON document a command was given: `--json TEXT`, `--file PATH` (`-` = stdin), or
/// standard input.
enum DocumentInput {
    static func read(arguments: ParsedArguments, context: CommandContext) throws -> JSONValue {
        let bytes: [UInt8]
        let source: String
        if let text = arguments.option("json") {
            bytes = Array(text.utf8)
            source = "--json"
        } else if let file = arguments.option("file"), file != "-" {
            bytes = try FileSystem.readFile(context.absolutePath(file), limit: 64 << 20)
            source = file
        } else {
            // A terminal on stdin would wait silently for typing: say what is expected instead.
            if arguments.option("file") == nil && context.stdinIsTerminal {
                throw UsageError(
                    "no document given: pass it with --json TEXT or --file PATH, or pipe it in (standard input is a terminal)")
            }
            bytes = try context.stdin.readAll()
            source = "<stdin>"
        }
        return try parse(bytes, source: source)
    }

    /// Parses JSON text, turning a parse error into one naming the source, line and column.
    static func parse(_ bytes: [UInt8], source: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw StoreError.invalidJSON(source: source, line: error.line, column: error.column, reason: error.reason)
        }
    }
}
