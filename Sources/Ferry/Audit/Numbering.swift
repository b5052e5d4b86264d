/// Values numbered 0, 1, 2, … in the order they are first seen, for the compact forms that
/// keep a small number in place of a replica id or an entity name (``ReplayTable``,
/// ``ReplaySpill``).
struct Numbering<Value: Hashable>: Sendable where Value: Sendable {
    /// The values, by number.
    private(set) var values: [Value] = []
    private var numbers: [Value: Int] = [:]

    /// The number of `value`, given it now when it has none.
    mutating func number(of value: Value) -> Int {
        if let number = numbers[value] { return number }
        let number = values.count
        values.append(value)
        numbers[value] = number
        return number
    }

    /// The number of `value`, when it has one.
    func existingNumber(of value: Value) -> Int? { numbers[value] }

    /// The value numbered `number`.
    subscript(number: Int) -> Value { values[number] }

    var count: Int { values.count }
}
