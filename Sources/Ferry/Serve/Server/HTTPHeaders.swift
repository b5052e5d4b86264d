/// HTTP header fields in the order they were sent, looked up without regard to case.
///
/// ```swift
/// var headers: HTTPHeaders = ["Content-Type": "application/json"]
/// headers.add("Cache-Control", "no-store")
/// headers["content-type"]   // "application/json"
/// ```
package struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One field: a name as sent and its value, with surrounding whitespace removed.
    package struct Field: Sendable, Hashable {
        /// The name, in the case it was sent or set.
        package var name: String
        /// The value.
        package var value: String
        /// Makes a field.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]

    /// Makes an empty set of fields.
    package init() { fields = [] }

    /// Makes fields from name–value pairs, in order.
    package init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Makes fields from a literal, in order: `["Content-Type": "application/json"]`.
    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of fields.
    package var count: Int { fields.count }

    /// Whether there are no fields.
    package var isEmpty: Bool { fields.isEmpty }

    /// The value of the first field named `name` (any case); setting replaces every field of
    /// that name, and `nil` removes them.
    package subscript(name: String) -> String? {
        get { fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value }
        set {
            if let index = fields.firstIndex(where: { $0.name.equalsIgnoringASCIICase(name) }) {
                if let newValue {
                    fields[index].value = newValue
                    let tail = fields.index(after: index)
                    fields[tail...].removeAll { $0.name.equalsIgnoringASCIICase(name) }
                } else {
                    fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
                }
            } else if let newValue {
                fields.append(Field(name: name, value: newValue))
            }
        }
    }

    /// The values of every field named `name` (any case), in order.
    package func values(for name: String) -> [String] {
        fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    /// Whether a field named `name` (any case) is present.
    package func contains(_ name: String) -> Bool {
        fields.contains { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// Appends a field, keeping any others of the same name.
    package mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name` (any case).
    package mutating func remove(_ name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// Iterates over the fields in order.
    package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

extension String {
    /// ASCII case-insensitive equality, as header names and tokens are compared.
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let left = utf8, right = other.utf8
        guard left.count == right.count else { return false }
        for (a, b) in zip(left, right) where a != b {
            if a | 0x20 != b | 0x20 || !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20) {
                return false
            }
        }
        return true
    }
}
