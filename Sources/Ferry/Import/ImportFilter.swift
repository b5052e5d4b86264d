/// A `--scope` expression: which stored records an import compares against (and so may update
/// or delete), or which records an export writes.
///
/// The language is small: comparisons `field op value` joined with `and` and `or` (`and` binds
/// tighter), grouped with parentheses.
///
/// ```swift
/// let scope = try ImportFilter(parsing: #"status = "active" and (price < 20 or updatedAt > now-24h)"#)
/// scope.matches(["status": "active", "price": 12.5], now: nowMilliseconds) // true
/// ```
///
/// - A field is a key or a dotted path into nested objects (`company.name`); a missing field
///   is `null`.
/// - The operators are `=` (or `==`), `!=`, `<`, `<=`, `>`, `>=`.
/// - A value is a JSON literal — a string in double quotes with JSON escapes, a number, `true`,
///   `false`, `null` — or a time relative to now: `now`, `now-30m`, `now-24h`, `now-3d`,
///   `now+1w` (units `s`, `m`, `h`, `d`, `w`).
/// - Numbers compare numerically whether integer or not. Strings compare by their Unicode
///   scalars, except that when both sides are ISO 8601 dates (stored canonical dates,
///   `"2024-03-05"`, `"2024-03-05T10:00:00+02:00"`) they compare as instants. A relative time
///   compares with fields that are ISO 8601 dates.
/// - `field = null` holds when the field is missing or `null`; `!=` is its negation.
/// - Values that cannot be compared (a string with a number, anything with `null` under `<`) make
///   `=` and the orderings false and `!=` true.
/// - `and`, `or`, `true`, `false`, `null` and `now` are words of the language, not field names.
public indirect enum ImportFilter: Sendable, Equatable, CustomStringConvertible {
    /// One comparison, `field op value`.
    case comparison(Comparison)
    /// Both filters hold.
    case and(ImportFilter, ImportFilter)
    /// Either filter holds.
    case or(ImportFilter, ImportFilter)

    /// Parses a scope expression.
    /// - Throws: ``ImportError/invalidScope(expression:column:message:)``, whose description points
    ///   at the 1-based column with a caret: `scope: expected an operator at column 12`.
    public init(parsing text: String) throws(ImportError) {
        var parser = ScopeParser(text: text)
        self = try parser.parseExpression()
    }

    /// Whether `document` is in scope.
    /// - Parameters:
    ///   - document: a record, a JSON object; any other value has only missing fields.
    ///   - now: the current time in milliseconds since 1970, for relative times (injected so that
    ///     evaluation is pure and testable).
    public func matches(_ document: JSONValue, now: Int64) -> Bool {
        switch self {
        case .comparison(let comparison): return comparison.holds(for: document, now: now)
        case .and(let left, let right): return left.matches(document, now: now) && right.matches(document, now: now)
        case .or(let left, let right): return left.matches(document, now: now) || right.matches(document, now: now)
        }
    }

    /// The expression written back, with parentheses around every `or` inside an `and`.
    public var description: String {
        switch self {
        case .comparison(let comparison): return comparison.description
        case .and(let left, let right): return Self.grouped(left) + " and " + Self.grouped(right)
        case .or(let left, let right): return left.description + " or " + right.description
        }
    }

    static func grouped(_ filter: ImportFilter) -> String {
        if case .or = filter { return "(" + filter.description + ")" }
        return filter.description
    }
}

extension ImportFilter {
    /// `field op value`.
    public struct Comparison: Sendable, Equatable, CustomStringConvertible {
        /// The path of the field: `["company", "name"]` for `company.name`.
        public var field: [String]
        /// How the field compares with the operand.
        public var op: Operator
        /// The value compared with.
        public var operand: Operand

        /// Makes a comparison.
        public init(field: [String], op: Operator, operand: Operand) {
            self.field = field
            self.op = op
            self.operand = operand
        }

        public var description: String {
            field.joined(separator: ".") + " " + op.rawValue + " " + operand.description
        }
    }

    /// A comparison operator.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case equal = "="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
    }

    /// The right-hand side of a comparison.
    public enum Operand: Sendable, Equatable, CustomStringConvertible {
        /// A JSON literal: string, number, boolean or `null`.
        case value(JSONValue)
        /// `now` plus an offset in milliseconds (`now-24h` is `-86_400_000`).
        case relativeTime(millisecondsFromNow: Int64)

        public var description: String {
            switch self {
            case .value(let value): return ScopeParser.literalText(value)
            case .relativeTime(let offset): return ScopeParser.relativeTimeText(offset)
            }
        }
    }
}
