/// The origin and counter of a journal line, read without decoding the rest of it: a reader
/// that leaves out the changes a peer already has (a push after a join reads back thousands of
/// entries the peer sent) need not parse their documents to learn that.
///
/// The line is walked as one JSON object: the `counter` and `origin` members are read, every
/// other value (the document among them) is stepped over, with strings and nesting followed
/// but nothing built. Anything unexpected gives `nil`, and the caller decodes the line whole,
/// with the errors that decoding gives.
struct JournalLineHeader {
    let origin: ReplicaID
    let counter: UInt64

    /// Reads `line` (one journal line, without its newline); `nil` when it is not a JSON object
    /// with both members, of the right types, that this walk understands.
    static func read(_ line: UnsafeRawBufferPointer) -> JournalLineHeader? {
        var scanner = Walker(bytes: line)
        return scanner.header()
    }

    private struct Walker {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        private static let quote = UInt8(ascii: "\"")
        private static let backslash = UInt8(ascii: "\\")

        mutating func header() -> JournalLineHeader? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var origin: ReplicaID?
            var counter: UInt64?
            while true {
                guard let key = plainString(), take(UInt8(ascii: ":")) else { return nil }
                if key.elementsEqual("counter".utf8) {
                    guard counter == nil, let value = unsignedInteger() else { return nil }
                    counter = value
                } else if key.elementsEqual("origin".utf8) {
                    guard origin == nil, let text = plainString(), let replica = ReplicaID(String(decoding: text, as: UTF8.self)) else {
                        return nil
                    }
                    origin = replica
                } else {
                    guard skipValue() else { return nil }
                }
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")), index == bytes.count, let origin, let counter else { return nil }
                return JournalLineHeader(origin: origin, counter: counter)
            }
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string without escapes (keys, ids): its bytes between the quotes.
        private mutating func plainString() -> UnsafeRawBufferPointer? {
            guard take(Self.quote) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == Self.quote {
                    index += 1
                    return UnsafeRawBufferPointer(rebasing: bytes[start..<(index - 1)])
                }
                if byte == Self.backslash || byte < 0x20 { return nil }
                index += 1
            }
            return nil
        }

        /// Decimal digits, without sign, fraction or exponent, that fit 64 bits.
        private mutating func unsignedInteger() -> UInt64? {
            var value: UInt64 = 0
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowSum) = times.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
                guard !overflowTimes, !overflowSum else { return nil }
                value = sum
                index += 1
            }
            guard index > start, index - start == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            return value
        }

        /// Steps over one value: a string, an object or array (strings within followed, nesting
        /// counted, not recursed into), or a scalar up to the next `,`, `}` or `]`.
        private mutating func skipValue() -> Bool {
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case Self.quote:
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case Self.quote:
                        guard skipString() else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return true
                        }
                    default:
                        break
                    }
                    index += 1
                }
                return false
            default:
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "}"),
                    bytes[index] != UInt8(ascii: "]")
                {
                    index += 1
                }
                return index > start
            }
        }

        private mutating func skipString() -> Bool {
            guard take(Self.quote) else { return false }
            while index < bytes.count {
                switch bytes[index] {
                case Self.quote:
                    index += 1
                    return true
                case Self.backslash:
                    index += 2
                default:
                    index += 1
                }
            }
            return false
        }
    }
}
