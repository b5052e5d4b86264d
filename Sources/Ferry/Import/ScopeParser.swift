/// A token of a scope expression, with the 1-based column where it starts.
struct ScopeToken: Equatable {
    enum Kind: Equatable {
        case field([String])
        case op(ImportFilter.Operator)
        case literal(JSONValue)
        case relativeTime(Int64)
        case and, or, openParenthesis, closeParenthesis, end
    }

    var kind: Kind
    var column: Int
}

/// Reads scope expressions: a tokenizer over Unicode scalars and a recursive-descent parser.
///
/// ```
/// expression := conjunction ("or" conjunction)*
/// conjunction := primary ("and" primary)*
/// primary := "(" expression ")" | field operator value
/// ```
struct ScopeParser {
    let text: String
    let scalars: [Unicode.Scalar]
    var position = 0
    var lookahead: ScopeToken?

    init(text: String) {
        self.text = text
        scalars = Array(text.unicodeScalars)
    }

    // MARK: Grammar

    mutating func parseExpression() throws(ImportError) -> ImportFilter {
        let filter = try parseDisjunction()
        let token = try peek()
        guard token.kind == .end else {
            throw failure("expected 'and', 'or' or the end", at: token.column)
        }
        return filter
    }

    mutating func parseDisjunction() throws(ImportError) -> ImportFilter {
        var filter = try parseConjunction()
        while try peek().kind == .or {
            _ = try next()
            filter = .or(filter, try parseConjunction())
        }
        return filter
    }

    mutating func parseConjunction() throws(ImportError) -> ImportFilter {
        var filter = try parsePrimary()
        while try peek().kind == .and {
            _ = try next()
            filter = .and(filter, try parsePrimary())
        }
        return filter
    }

    mutating func parsePrimary() throws(ImportError) -> ImportFilter {
        let token = try next()
        switch token.kind {
        case .openParenthesis:
            let inner = try parseDisjunction()
            let close = try next()
            guard close.kind == .closeParenthesis else { throw failure("expected ')'", at: close.column) }
            return inner
        case .field(let path):
            let opToken = try next()
            guard case .op(let op) = opToken.kind else {
                throw failure("expected an operator", at: opToken.column)
            }
            let valueToken = try next()
            switch valueToken.kind {
            case .literal(let value):
                return .comparison(.init(field: path, op: op, operand: .value(value)))
            case .relativeTime(let offset):
                return .comparison(.init(field: path, op: op, operand: .relativeTime(millisecondsFromNow: offset)))
            default:
                throw failure("expected a value", at: valueToken.column)
            }
        default:
            throw failure("expected a field", at: token.column)
        }
    }

    // MARK: Tokens

    mutating func peek() throws(ImportError) -> ScopeToken {
        if let lookahead { return lookahead }
        let token = try scanToken()
        lookahead = token
        return token
    }

    mutating func next() throws(ImportError) -> ScopeToken {
        let token = try peek()
        lookahead = nil
        return token
    }

    mutating func scanToken() throws(ImportError) -> ScopeToken {
        while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
        let column = position + 1
        guard position < scalars.count else { return ScopeToken(kind: .end, column: column) }
        let scalar = scalars[position]
        switch scalar {
        case "(":
            position += 1
            return ScopeToken(kind: .openParenthesis, column: column)
        case ")":
            position += 1
            return ScopeToken(kind: .closeParenthesis, column: column)
        case "=", "!", "<", ">":
            return ScopeToken(kind: .op(try scanOperator()), column: column)
        case "\"":
            return ScopeToken(kind: .literal(.string(try scanString())), column: column)
        case "-", "0"..."9":
            return ScopeToken(kind: .literal(try scanNumber()), column: column)
        case "a"..."z", "A"..."Z", "_":
            return ScopeToken(kind: try scanWord(), column: column)
        default:
            throw failure("unexpected character '\(scalar.escaped(asASCII: false))'", at: column)
        }
    }

    mutating func scanOperator() throws(ImportError) -> ImportFilter.Operator {
        let column = position + 1
        let first = scalars[position]
        position += 1
        let followedByEquals = position < scalars.count && scalars[position] == "="
        if followedByEquals { position += 1 }
        switch (first, followedByEquals) {
        case ("=", _): return .equal
        case ("!", true): return .notEqual
        case ("<", false): return .less
        case ("<", true): return .lessOrEqual
        case (">", false): return .greater
        case (">", true): return .greaterOrEqual
        default: throw failure("expected '!='", at: column)
        }
    }

    mutating func scanWord() throws(ImportError) -> ScopeToken.Kind {
        let column = position + 1
        let start = position
        while position < scalars.count, Self.isWordScalar(scalars[position]) || scalars[position] == "." { position += 1 }
        let word = String(String.UnicodeScalarView(scalars[start..<position]))
        switch word.lowercased() {
        case "and": return .and
        case "or": return .or
        case "true": return .literal(.bool(true))
        case "false": return .literal(.bool(false))
        case "null": return .literal(.null)
        case "now": return .relativeTime(try scanRelativeOffset())
        default: break
        }
        let path = word.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if let empty = path.firstIndex(where: \.isEmpty) {
            let offset = path[..<empty].reduce(0) { $0 + $1.unicodeScalars.count + 1 }
            throw failure("expected a name in the field path", at: column + offset)
        }
        return .field(path)
    }

    /// After `now`: nothing, or `+`/`-`, an amount and a unit (`s`, `m`, `h`, `d`, `w`).
    mutating func scanRelativeOffset() throws(ImportError) -> Int64 {
        guard position < scalars.count, scalars[position] == "-" || scalars[position] == "+" else { return 0 }
        let sign: Int64 = scalars[position] == "-" ? -1 : 1
        position += 1
        let amountColumn = position + 1
        var amount: Int64 = 0
        var digitCount = 0
        while position < scalars.count, ("0"..."9").contains(scalars[position]) {
            amount = amount * 10 + Int64(scalars[position].value - 0x30)
            digitCount += 1
            position += 1
            guard digitCount <= 9 else { throw failure("the duration is too long", at: amountColumn) }
        }
        let unitColumn = position + 1
        guard digitCount > 0 else { throw failure("expected a duration such as now-24h", at: amountColumn) }
        let units: [Unicode.Scalar: Int64] = ["s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000]
        guard position < scalars.count, let unit = units[scalars[position]] else {
            throw failure("expected a unit s, m, h, d or w", at: unitColumn)
        }
        position += 1
        if position < scalars.count, Self.isWordScalar(scalars[position]) {
            throw failure("expected a unit s, m, h, d or w", at: unitColumn)
        }
        return sign * amount * unit
    }

    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_": return true
        default: return false
        }
    }

    func failure(_ message: String, at column: Int) -> ImportError {
        .invalidScope(expression: text, column: column, message: message)
    }
}
