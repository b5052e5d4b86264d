/// An option of a command (`--store <path>`, `-s <path>`, `--dry-run`), as declared in its
/// ``CommandSpec``.
///
/// ```swift
/// options: [
///     .value("store", short: "s", valueName: "path", help: "The store directory.", default: "."),
///     .value("tag", valueName: "name", help: "Adds a tag.", repeatable: true),
///     .flag("dry-run", help: "Show what would change without writing."),
/// ]
/// ```
struct OptionSpec: Sendable, Hashable {
    /// Whether the option takes a value.
    enum Kind: Sendable, Hashable {
        /// A switch with no value (`--dry-run`).
        case flag
        /// An option with a value, shown in help as `<valueName>`.
        case value(valueName: String)
    }

    /// The long name without dashes: `store` for `--store`.
    var name: String
    /// The one-letter short name, without the dash: `s` for `-s`.
    var short: Character?
    var kind: Kind
    /// One sentence for the OPTIONS section of the help.
    var help: String
    /// Whether the option may be given more than once; ``ParsedArguments/options(_:)`` returns
    /// every value.
    var isRepeatable: Bool
    /// The value used when the option is absent, shown in help as `(default: …)`.
    var defaultValue: String?

    /// A switch with no value, read with ``ParsedArguments/flag(_:)``.
    static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, kind: .flag, help: help, isRepeatable: false, defaultValue: nil)
    }

    /// An option with a value, read with ``ParsedArguments/option(_:)`` or, when `repeatable`,
    /// ``ParsedArguments/options(_:)``.
    static func value(
        _ name: String, short: Character? = nil, valueName: String, help: String,
        default defaultValue: String? = nil, repeatable: Bool = false
    ) -> OptionSpec {
        OptionSpec(
            name: name, short: short, kind: .value(valueName: valueName), help: help,
            isRepeatable: repeatable, defaultValue: defaultValue)
    }

    /// Whether the option takes a value.
    var takesValue: Bool {
        if case .value = kind { return true }
        return false
    }

    /// `--store` (the spelling used in error messages).
    var displayName: String { "--\(name)" }

    /// `-s, --store <path>` (the left column of the help).
    var label: String {
        var text = short.map { "-\($0), " } ?? ""
        text += displayName
        if case .value(let valueName) = kind { text += " <\(valueName)>" }
        return text
    }
}
