/// Splits a line into fields at a separator byte.
struct FieldSplitter {
    var rest: ArraySlice<UInt8>?
    let separator: UInt8

    init(line: ArraySlice<UInt8>, separator: UInt8) {
        rest = line
        self.separator = separator
    }

    mutating func next() -> ArraySlice<UInt8>? {
        guard let current = rest else { return nil }
        if let cut = current.firstIndex(of: separator) {
            rest = current[(cut + 1)...]
            return current[..<cut]
        }
        rest = nil
        return current
    }

    mutating func nextInteger() -> UInt64? {
        guard let field = next(), !field.isEmpty, field.count <= 20 else { return nil }
        var value: UInt64 = 0
        for byte in field {
            guard byte.isASCIIDigit else { return nil }
            let (product, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = product.addingReportingOverflow(UInt64(byte - 48))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value
    }

    mutating func nextSignedInteger() -> Int64? {
        guard let field = next(), !field.isEmpty else { return nil }
        let negative = field.first == UInt8(ascii: "-")
        var inner = FieldSplitter(line: negative ? field.dropFirst() : field, separator: separator)
        guard let magnitude = inner.nextInteger(), magnitude <= UInt64(Int64.max) else { return nil }
        return negative ? -Int64(magnitude) : Int64(magnitude)
    }
}
