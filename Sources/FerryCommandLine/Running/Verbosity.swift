/// How much a command says besides its output and its errors: `-q`/`--quiet` drops progress
/// lines and notes on standard error, `-v`/`--verbose` adds detail (a sync's rounds, requests
/// and spooled changes, say). Errors and warnings are said whatever the verbosity.
///
/// ```swift
/// let (verbosity, rest) = try Verbosity.take(from: ["-q", "sync", "a", "b"])  // (.quiet, ["sync", "a", "b"])
/// ```
enum Verbosity: Sendable, Equatable {
    case quiet
    case normal
    case verbose

    /// The global options' spellings.
    static let quietSpellings: Set<String> = ["-q", "--quiet"]
    static let verboseSpellings: Set<String> = ["-v", "--verbose"]

    /// Takes the global options out of `arguments`, anywhere before `--`.
    /// - Throws: ``UsageError`` when both are given.
    static func take(from arguments: [String]) throws(UsageError) -> (Verbosity, [String]) {
        var verbosity = Verbosity.normal
        var rest: [String] = []
        var ended = false
        for argument in arguments {
            if !ended, argument == "--" { ended = true }
            let spelling: Verbosity? = ended ? nil : quietSpellings.contains(argument) ? .quiet : verboseSpellings.contains(argument) ? .verbose : nil
            guard let spelling else {
                rest.append(argument)
                continue
            }
            if verbosity != .normal, verbosity != spelling { throw UsageError("-q and -v do not go together") }
            verbosity = spelling
        }
        return (verbosity, rest)
    }
}
