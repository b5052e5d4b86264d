/// A cursor over the UTF-8 bytes of an ISO 8601 date.
struct DateScanner {
    let text: String
    let bytes: [UInt8]
    var position = 0

    init(text: String) {
        self.text = text
        bytes = Array(text.utf8)
    }

    mutating func scanISO8601() throws(ImportError) -> ImportDate {
        var fields = DateFields(
            year: try number(digits: 4, what: "a four-digit year"), month: 0, day: 0)
        try expect("-", what: "'-' after the year")
        fields.month = try number(digits: 2, what: "a two-digit month")
        try expect("-", what: "'-' after the month")
        fields.day = try number(digits: 2, what: "a two-digit day")
        if position < bytes.count {
            let separator = bytes[position]
            guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ") else {
                throw failure("expected 'T' or a space after the date")
            }
            position += 1
            try scanTime(into: &fields)
            try scanZone(into: &fields)
        }
        guard position == bytes.count else { throw failure("unexpected text after the date") }
        return try fields.date(for: text)
    }

    mutating func scanTime(into fields: inout DateFields) throws(ImportError) {
        fields.hour = try number(digits: 2, what: "a two-digit hour")
        try expect(":", what: "':' after the hour")
        fields.minute = try number(digits: 2, what: "two-digit minutes")
        guard consume(":") else { return }
        fields.second = try number(digits: 2, what: "two-digit seconds")
        guard consume(".") || consume(",") else { return }
        let start = position
        while position < bytes.count, bytes[position].isASCIIDigit { position += 1 }
        let count = position - start
        guard (1...9).contains(count) else {
            throw failure(count == 0 ? "expected digits after the decimal point" : "more than 9 fraction digits")
        }
        var milliseconds = Int64(0)
        for index in 0..<3 {
            let digit = start + index < position ? Int64(bytes[start + index] - UInt8(ascii: "0")) : 0
            milliseconds = milliseconds * 10 + digit
        }
        fields.millisecond = milliseconds
    }

    mutating func scanZone(into fields: inout DateFields) throws(ImportError) {
        guard position < bytes.count else { return }
        let afterSpace = consume(" ")
        guard position < bytes.count else { throw failure("expected a zone after the space") }
        if consume("Z") || consume("z") { return }
        if bytes[position...].elementsEqual("UTC".utf8) {
            position += 3
            return
        }
        let sign = bytes[position]
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else {
            throw failure(afterSpace ? "expected a zone such as Z or +02:00" : "unexpected text after the time")
        }
        position += 1
        let hours = try number(digits: 2, what: "a two-digit offset hour")
        var minutes = Int64(0)
        if consume(":") {
            minutes = try number(digits: 2, what: "two-digit offset minutes")
        } else if position < bytes.count {
            minutes = try number(digits: 2, what: "two-digit offset minutes")
        }
        guard hours <= 23, minutes <= 59 else { throw failure("the offset is not between -23:59 and +23:59") }
        fields.offsetMinutes = (hours * 60 + minutes) * (sign == UInt8(ascii: "-") ? -1 : 1)
    }

    mutating func number(digits count: Int, what: String) throws(ImportError) -> Int64 {
        guard position + count <= bytes.count,
            bytes[position..<(position + count)].allSatisfy({ $0.isASCIIDigit })
        else { throw failure("expected \(what)") }
        let value = bytes[position..<(position + count)].reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        position += count
        return value
    }

    mutating func expect(_ character: Unicode.Scalar, what: String) throws(ImportError) {
        guard consume(character) else { throw failure("expected \(what)") }
    }

    mutating func consume(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    func failure(_ reason: String) -> ImportError {
        .invalidDate(text, reason: reason)
    }
}
