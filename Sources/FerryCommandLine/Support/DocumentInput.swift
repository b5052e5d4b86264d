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
            bytes = try bounded("\(file) holds") { () throws(SystemError) in try FileSystem.readFile(context.absolutePath(file), limit: maximumBytes) }
            source = file
        } else {
            // A terminal on stdin would wait silently for typing: say what is expected instead.
            if arguments.option("file") == nil && context.stdinIsTerminal {
                throw UsageError(
                    "no document given: pass it with --json TEXT or --file PATH, or pipe it in (standard input is a terminal)")
            }
            bytes = try bounded("standard input holds") { () throws(SystemError) in try context.stdin.readAll(limit: maximumBytes) }
            source = "<stdin>"
        }
        return try parse(bytes, source: source)
    }

    /// The most bytes of a document a command reads (its spaces included).
    static let maximumBytes = 64 << 20

    /// The parser's limits for a document given to a command: a store's depth, and the bytes
    /// a command reads. The store then holds the document to its own limits (32 MiB canonical)
    /// with an error that names them; the parser's defaults (16 MiB) refused a document the
    /// store accepts.
    static let parsing = JSONParser.Options(maximumDepth: StoreOptions().maximumDepth, maximumByteCount: maximumBytes)

    /// What `read` reads, or an error saying that the input (`what`) is too large.
    private static func bounded(_ what: String, _ read: () throws(SystemError) -> [UInt8]) throws -> [UInt8] {
        switch Result(catching: read) {
        case .success(let bytes):
            return bytes
        case .failure(let error) where error.isFileTooLarge:
            throw CLIError("\(what) more than the 64 MiB a document may take; nothing was written")
        case .failure(let error):
            throw error
        }
    }

    /// Parses JSON text, turning a parse error into one naming the source, line and column.
    static func parse(_ bytes: [UInt8], source: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(bytes, options: parsing)
        } catch {
            throw StoreError.invalidJSON(source: source, line: error.line, column: error.column, reason: error.reason)
        }
    }
}
