extension ImportFilter.Comparison {
    /// Whether the comparison holds for `document` at time `now` (milliseconds since 1970).
    func holds(for document: JSONValue, now: Int64) -> Bool {
        let value = Self.value(at: field, in: document)
        switch operand {
        case .relativeTime(let offset):
            let (target, overflow) = now.addingReportingOverflow(offset)
            guard !overflow, case .string(let text) = value, let date = try? ImportDate(iso8601: text) else {
                return op == .notEqual
            }
            return op.accepts(Self.order(date.millisecondsSince1970, target))
        case .value(.null):
            let isNull = value.isNull
            switch op {
            case .equal: return isNull
            case .notEqual: return !isNull
            default: return false
            }
        case .value(let literal):
            guard let order = Self.order(value, literal) else { return op == .notEqual }
            return op.accepts(order)
        }
    }

    /// The value at `path`, or `null` when a step is missing or not an object.
    static func value(at path: [String], in document: JSONValue) -> JSONValue {
        var current = document
        for key in path {
            guard case .object(let members) = current, let next = members[key] else { return .null }
            current = next
        }
        return current
    }

    /// How `value` orders against `literal`, or `nil` when they cannot be compared (different
    /// kinds, arrays, objects). Two different booleans are `.unordered`: unequal, but neither less.
    static func order(_ value: JSONValue, _ literal: JSONValue) -> Ordering? {
        switch (value, literal) {
        case (.integer(let left), .integer(let right)):
            return order(left, right)
        case (.integer, .double), (.double, .integer), (.double, .double):
            return numericOrder(value, literal)
        case (.string(let left), .string(let right)):
            if let leftDate = try? ImportDate(iso8601: left), let rightDate = try? ImportDate(iso8601: right) {
                return order(leftDate.millisecondsSince1970, rightDate.millisecondsSince1970)
            }
            if left == right { return .same }
            return left.unicodeScalars.lexicographicallyPrecedes(right.unicodeScalars) ? .ascending : .descending
        case (.bool(let left), .bool(let right)):
            return left == right ? .same : .unordered
        default:
            return nil
        }
    }

    static func order(_ left: Int64, _ right: Int64) -> Ordering {
        left == right ? .same : (left < right ? .ascending : .descending)
    }

    /// Integer against double: exact when the double is whole and fits 64 bits.
    static func numericOrder(_ left: JSONValue, _ right: JSONValue) -> Ordering? {
        func asInteger(_ value: JSONValue) -> Int64? {
            switch value {
            case .integer(let integer): return integer
            case .double(let double): return Int64(exactly: double)
            default: return nil
            }
        }
        if let leftInteger = asInteger(left), let rightInteger = asInteger(right) {
            return order(leftInteger, rightInteger)
        }
        guard let leftDouble = left.doubleValue, let rightDouble = right.doubleValue else { return nil }
        if leftDouble == rightDouble { return .same }
        return leftDouble < rightDouble ? .ascending : .descending
    }

    /// The outcome of comparing two values that can be compared.
    enum Ordering {
        case ascending, same, descending
        /// Different, with no order between them (two different booleans).
        case unordered
    }
}

extension ImportFilter.Operator {
    func accepts(_ order: ImportFilter.Comparison.Ordering) -> Bool {
        switch (self, order) {
        case (.equal, .same), (.lessOrEqual, .same), (.greaterOrEqual, .same): return true
        case (.notEqual, .ascending), (.notEqual, .descending), (.notEqual, .unordered): return true
        case (.less, .ascending), (.lessOrEqual, .ascending): return true
        case (.greater, .descending), (.greaterOrEqual, .descending): return true
        default: return false
        }
    }
}
