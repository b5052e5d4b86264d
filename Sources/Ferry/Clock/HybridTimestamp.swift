/// A hybrid logical clock stamp: wall-clock milliseconds plus a logical counter.
///
/// Stamps order changes across replicas whose clocks are skewed (Kulkarni et al., 2014).
/// Ties between equal stamps are broken by the replica id, outside this type.
/// The text form, used in the journal, is `<milliseconds>.<logical>`, e.g. `1763757283123.0`.
public struct HybridTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z, as seen by the clock that made the stamp.
    public var physical: UInt64
    /// Counts stamps made within one millisecond (or while the wall clock lagged behind).
    public var logical: UInt32

    public init(physical: UInt64, logical: UInt32 = 0) {
        self.physical = physical
        self.logical = logical
    }

    /// The zero stamp: earlier than every stamp a clock makes.
    public static let zero = HybridTimestamp(physical: 0, logical: 0)

    /// Parses the journal's text form `<milliseconds>.<logical>`; `nil` if malformed.
    public init?(_ text: String) {
        var physical: UInt64 = 0
        var logical: UInt64 = 0
        var seenDot = false
        var digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard !seenDot, digits > 0 else { return nil }
                seenDot = true
                digits = 0
                continue
            }
            guard byte.isASCIIDigit else { return nil }
            let digit = UInt64(byte - 0x30)
            if seenDot {
                logical = logical &* 10 &+ digit
                guard logical <= UInt64(UInt32.max) else { return nil }
            } else {
                guard physical <= (UInt64.max - digit) / 10 else { return nil }
                physical = physical * 10 + digit
            }
            digits += 1
            guard digits <= 20 else { return nil }
        }
        guard seenDot, digits > 0 else { return nil }
        self.physical = physical
        self.logical = UInt32(logical)
    }

    /// The journal's text form, `<milliseconds>.<logical>`.
    public var description: String { "\(physical).\(logical)" }

    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
        lhs.physical != rhs.physical ? lhs.physical < rhs.physical : lhs.logical < rhs.logical
    }
}
