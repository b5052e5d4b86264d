/// A command line parsed against a ``CommandSpec``, read through typed accessors by name.
///
/// ```swift
/// let entity = try arguments.requiredPositional("entity")
/// let file = arguments.positional("file") ?? "-"
/// let store = arguments.option("store")           // the last value given, or the default
/// let tags = arguments.options("tag")             // every value of a repeatable option
/// let dryRun = arguments.flag("dry-run")
/// let limit = try arguments.integer("limit", in: 1...10_000) ?? 100
/// ```
///
/// Asking for a name the spec does not declare is a programmer error, caught by an assertion in
/// debug builds.
struct ParsedArguments: Sendable {
    /// The declaration the arguments were parsed against.
    let spec: CommandSpec
    /// Whether `-h` or `--help` was given; the other values are then incomplete.
    let isHelpRequested: Bool
    private let positionalValues: [String: [String]]
    private let optionValues: [String: [String]]
    private let flagsGiven: Set<String>

    init(
        spec: CommandSpec, positionals: [String: [String]], options: [String: [String]], flags: Set<String>
    ) {
        self.spec = spec
        self.isHelpRequested = false
        self.positionalValues = positionals
        self.optionValues = options
        self.flagsGiven = flags
    }

    /// The arguments of `ferry <command> --help`.
    static func helpRequest(for spec: CommandSpec) -> ParsedArguments {
        ParsedArguments(spec: spec)
    }

    private init(spec: CommandSpec) {
        self.spec = spec
        self.isHelpRequested = true
        self.positionalValues = [:]
        self.optionValues = [:]
        self.flagsGiven = []
    }

    /// These arguments with others joined in: `positionals` replace those of their names, and
    /// `options` come before the values given (so a value given wins, as the last one does);
    /// `flags` are added. How a named peer's location and remembered options join a command line.
    func joining(positionals: [String: String], options: [String: String], flags: Set<String>) -> ParsedArguments {
        var positionalValues = self.positionalValues
        for (name, value) in positionals { positionalValues[name] = [value] }
        var optionValues = self.optionValues
        for (name, value) in options { optionValues[name] = [value] + (optionValues[name] ?? []) }
        return ParsedArguments(spec: spec, positionals: positionalValues, options: optionValues, flags: flagsGiven.union(flags))
    }

    // MARK: Positional arguments

    /// The value of a positional argument; `nil` when an optional one was left out. For a
    /// variadic argument, the first value.
    func positional(_ name: String) -> String? {
        assertDeclared(argument: name)
        return positionalValues[name]?.first
    }

    /// Every value of a variadic argument (or the one value of a plain argument), in order.
    func positionals(_ name: String) -> [String] {
        assertDeclared(argument: name)
        return positionalValues[name] ?? []
    }

    /// The value of a required positional argument.
    ///
    /// - Throws: ``UsageError`` if it is missing, which the parser already rules out for
    ///   arguments declared required.
    func requiredPositional(_ name: String) throws(UsageError) -> String {
        guard let value = positional(name) else {
            throw UsageError("missing argument <\(name)> for '\(spec.qualifiedName)'", commandName: spec.name)
        }
        return value
    }

    // MARK: Options

    /// The value of an option: the last one given, else its declared default, else `nil`.
    func option(_ name: String) -> String? {
        assertDeclared(option: name)
        return optionValues[name]?.last ?? spec.option(named: name)?.defaultValue
    }

    /// Every value given for a repeatable option, in order; empty (not the default) when absent.
    func options(_ name: String) -> [String] {
        assertDeclared(option: name)
        return optionValues[name] ?? []
    }

    /// Whether a flag was given.
    func flag(_ name: String) -> Bool {
        assertDeclared(option: name)
        return flagsGiven.contains(name)
    }

    // MARK: Numbers

    /// An option's or argument's value as a whole number; `nil` when absent.
    ///
    /// - Throws: ``UsageError`` such as `--limit expects a whole number, got 'x'`.
    func integer(_ name: String) throws(UsageError) -> Int? {
        guard let found = valueAndLabel(name) else { return nil }
        let (text, label) = found
        guard let number = Int(text) else {
            throw usageError("\(label) expects a whole number, got '\(text)'")
        }
        return number
    }

    /// An option's or argument's value as a whole number in `range`; `nil` when absent.
    ///
    /// - Throws: ``UsageError`` such as `--limit must be between 1 and 1000, got '0'`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let number = try integer(name) else { return nil }
        guard range.contains(number) else {
            let label = valueAndLabel(name)?.label ?? name
            throw usageError(
                "\(label) must be between \(range.lowerBound) and \(range.upperBound), got '\(number)'")
        }
        return number
    }

    /// An option's or argument's value as a finite number (`2`, `0.5`, `-1e3`); `nil` when absent.
    ///
    /// - Throws: ``UsageError`` such as `--rate expects a number, got 'fast'`.
    func double(_ name: String) throws(UsageError) -> Double? {
        guard let found = valueAndLabel(name) else { return nil }
        let (text, label) = found
        guard let number = Double(text), number.isFinite else {
            throw usageError("\(label) expects a number, got '\(text)'")
        }
        return number
    }

    /// An option's value as a duration in milliseconds: a whole number and a unit, `d`, `h`,
    /// `m` or `s` (`30d`, `12h`); `.some(nil)` for `never`; `nil` when absent.
    ///
    /// - Throws: ``UsageError`` such as `--purge-after expects a duration such as 30d, 12h or never, got '3 weeks'`.
    func milliseconds(_ name: String) throws(UsageError) -> Int64?? {
        guard let (text, label) = valueAndLabel(name) else { return nil }
        if text == "never" { return .some(nil) }
        let units: [Character: Int64] = ["d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1000]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), count >= 0, count <= 36_500 * 86_400_000 / unit else {
            throw usageError("\(label) expects a duration such as 30d, 12h or never, got '\(text)'")
        }
        return .some(count * unit)
    }

    /// A usage error about this command, for checks the spec cannot express.
    ///
    /// ```swift
    /// throw arguments.usageError("'--from' and '--to' cannot be used together")
    /// ```
    func usageError(_ message: String) -> UsageError {
        UsageError(message, commandName: spec.name)
    }

    // MARK: Helpers

    /// The value for `name` (an option first, else an argument) and how messages name it.
    private func valueAndLabel(_ name: String) -> (value: String, label: String)? {
        if let option = spec.option(named: name) {
            return self.option(name).map { ($0, option.displayName) }
        }
        return positional(name).map { ($0, "<\(name)>") }
    }

    private func assertDeclared(argument name: String) {
        assert(spec.argument(named: name) != nil, "'\(spec.qualifiedName)' declares no argument '\(name)'")
    }

    private func assertDeclared(option name: String) {
        assert(spec.option(named: name) != nil, "'\(spec.qualifiedName)' declares no option '--\(name)'")
    }
}
