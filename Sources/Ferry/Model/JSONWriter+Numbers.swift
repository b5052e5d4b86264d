extension JSONWriter {
    /// Appends an integer in plain decimal: `-42`, `9223372036854775807`.
    static func writeInteger(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var index = digits.count
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }

    /// Appends a double as ECMAScript's `Number.prototype.toString` does (RFC 8785 §3.2.2.3).
    ///
    /// The digits are the shortest that read back as the same double (Swift's `description`
    /// computes them); only their layout is changed: plain decimal when 1e-7 ≤ |x| < 1e21,
    /// otherwise `d.ddde±n`. Zero of either sign is `0`. NaN and the infinities, which JSON
    /// cannot express, are written as `null`, as `JSON.stringify` does.
    static func writeDouble(_ value: Double, to output: inout [UInt8]) {
        guard value.isFinite else {
            append("null", to: &output)
            return
        }
        if value == 0 {
            output.append(UInt8(ascii: "0"))
            return
        }
        if value.magnitude <= 9_007_199_254_740_992, value.rounded(.towardZero) == value {
            // Every integer up to 2^53 is exact, so its own digits are the shortest.
            writeInteger(Int64(value), to: &output)
            return
        }
        var text = value.description
        let written = text.withUTF8 { bytes in
            // Without an exponent, Swift's layout of a non-integral value ("-12.25",
            // "0.00125") is already ECMAScript's, so the bytes can be copied as they are.
            guard !bytes.contains(UInt8(ascii: "e")) else { return false }
            output.append(contentsOf: bytes)
            return true
        }
        if !written { writeDoubleLayingOutDigits(value, to: &output) }
    }

    /// The general path of ``writeDouble(_:to:)``: takes the shortest digits from Swift's
    /// description and lays them out by the ECMAScript rules.
    static func writeDoubleLayingOutDigits(_ value: Double, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        let text = value.magnitude.description
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digits in
            let (count, decimalExponent) = shortestDigits(of: text, into: digits)
            layOut(UnsafeBufferPointer(rebasing: digits[..<count]), decimalExponent: decimalExponent, to: &output)
        }
    }

    /// Splits Swift's description of a positive finite double (`"1.5e-07"`, `"123.25"`,
    /// `"5e-324"`) into significant digits without leading or trailing zeros and the exponent
    /// `n` for which the value is `0.digits × 10^n`.
    private static func shortestDigits(of text: String, into digits: UnsafeMutableBufferPointer<UInt8>) -> (
        count: Int, decimalExponent: Int
    ) {
        var count = 0
        var pointPosition: Int?
        var exponent = 0
        var exponentSign = 1
        var inExponent = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if inExponent {
                    exponent = exponent * 10 + Int(byte - UInt8(ascii: "0"))
                } else if count < digits.count {
                    digits[count] = byte
                    count += 1
                }
            case UInt8(ascii: "."):
                pointPosition = count
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                inExponent = true
            case UInt8(ascii: "-"):
                exponentSign = -1
            default:
                break
            }
        }
        var decimalExponent = (pointPosition ?? count) + exponentSign * exponent
        var leadingZeros = 0
        while leadingZeros < count, digits[leadingZeros] == UInt8(ascii: "0") { leadingZeros += 1 }
        if leadingZeros > 0 {
            for index in leadingZeros..<count { digits[index - leadingZeros] = digits[index] }
            count -= leadingZeros
            decimalExponent -= leadingZeros
        }
        while count > 1, digits[count - 1] == UInt8(ascii: "0") { count -= 1 }
        return (count, decimalExponent)
    }

    /// ECMA-262 Number::toString, steps 6–10, for digits `s` (k of them) and exponent `n`.
    private static func layOut(_ digits: UnsafeBufferPointer<UInt8>, decimalExponent n: Int, to output: inout [UInt8]) {
        let k = digits.count
        if k <= n && n <= 21 {
            output.append(contentsOf: digits)
            output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: n - k))
        } else if 0 < n && n <= 21 {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[..<n]))
            output.append(UInt8(ascii: "."))
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[n...]))
        } else if -6 < n && n <= 0 {
            output.append(UInt8(ascii: "0"))
            output.append(UInt8(ascii: "."))
            output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -n))
            output.append(contentsOf: digits)
        } else {
            output.append(digits[0])
            if k > 1 {
                output.append(UInt8(ascii: "."))
                output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[1...]))
            }
            output.append(UInt8(ascii: "e"))
            output.append(n - 1 < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            writeInteger(Int64((n - 1).magnitude), to: &output)
        }
    }
}
