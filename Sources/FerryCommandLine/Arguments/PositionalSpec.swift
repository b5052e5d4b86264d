/// A positional argument of a command, as declared in its ``CommandSpec``.
///
/// ```swift
/// arguments: [
///     .required("entity", help: "The entity to write to."),
///     .optional("file", help: "A JSON file; '-' or absent reads standard input."),
/// ]
/// ```
struct PositionalSpec: Sendable, Hashable {
    /// The name, shown as `<name>` in help and used with ``ParsedArguments/positional(_:)``.
    var name: String
    /// One sentence for the ARGUMENTS section of the help.
    var help: String
    /// Whether the argument may be left out.
    var isOptional: Bool
    /// Whether it takes every remaining positional value; only the last argument may.
    var isVariadic: Bool

    /// An argument that must be given.
    static func required(_ name: String, help: String) -> PositionalSpec {
        PositionalSpec(name: name, help: help, isOptional: false, isVariadic: false)
    }

    /// An argument that may be left out; only arguments after the required ones may be optional.
    static func optional(_ name: String, help: String) -> PositionalSpec {
        PositionalSpec(name: name, help: help, isOptional: true, isVariadic: false)
    }

    /// The last argument, taking all remaining values (`<name> ...`).
    ///
    /// - Parameter atLeastOne: Whether one value is required; otherwise none is fine.
    static func variadic(_ name: String, help: String, atLeastOne: Bool = false) -> PositionalSpec {
        PositionalSpec(name: name, help: help, isOptional: !atLeastOne, isVariadic: true)
    }

    /// `<name>`, or `<name> ...` when variadic.
    var label: String { isVariadic ? "<\(name)> ..." : "<\(name)>" }
}
