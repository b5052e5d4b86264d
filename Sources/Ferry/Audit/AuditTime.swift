/// An instant given to an audit query: an ISO 8601 date or date and time, or a time before now
/// such as `30m`, `2h`, `3d` or `1w`.
///
/// ```swift
/// let since = try AuditTime(parsing: "2h", now: clock.milliseconds())
/// let day = try AuditTime(parsing: "2026-11-21", now: 0)          // midnight UTC
/// let exact = try AuditTime(parsing: "2026-11-21T20:34:43+01:00", now: 0)
/// ```
///
/// Relative forms are a whole number and a unit: `s` seconds, `m` minutes, `h` hours, `d` days,
/// `w` weeks. ISO 8601 accepts every shape ``ImportDate/init(iso8601:)`` does; a time without a
/// zone is UTC.
public struct AuditTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: UInt64

    /// Wraps milliseconds since 1970.
    public init(milliseconds: UInt64) {
        self.milliseconds = milliseconds
    }

    /// Parses a time as the command line gives it.
    ///
    /// - Parameters:
    ///   - text: ISO 8601 (`2026-11-21`, `2026-11-21T20:34`, `…Z`, `…+02:00`) or relative (`90m`).
    ///   - now: The current time in milliseconds, which relative forms count back from.
    /// - Throws: ``AuditError/invalidTime(_:reason:)`` saying which forms are accepted.
    public init(parsing text: String, now: UInt64) throws(AuditError) {
        if let relative = Self.relativeMilliseconds(text) {
            guard let milliseconds = relative else {
                throw .invalidTime(text, reason: "that is too far back")
            }
            self.milliseconds = now >= milliseconds ? now - milliseconds : 0
            return
        }
        guard let first = text.utf8.first, first.isASCIIDigit, text.utf8.count >= 10 else {
            throw .invalidTime(text, reason: Self.accepted)
        }
        let date: ImportDate
        do { date = try ImportDate(iso8601: text) } catch {
            throw .invalidTime(text, reason: "\(Self.reason(of: error)); \(Self.accepted)")
        }
        guard date.millisecondsSince1970 >= 0 else { throw .invalidTime(text, reason: "it is before 1970") }
        milliseconds = UInt64(date.millisecondsSince1970)
    }

    /// The instant in Ferry's ISO 8601 form, `2026-11-21T20:34:43.123Z`.
    public var description: String { ISO8601Milliseconds.format(milliseconds: milliseconds) }

    /// Earlier instants sort first.
    public static func < (lhs: AuditTime, rhs: AuditTime) -> Bool { lhs.milliseconds < rhs.milliseconds }

    private static let accepted =
        "use ISO 8601 (2026-11-21, 2026-11-21T20:30, 2026-11-21T20:30:00Z) or a time ago such as 30m, 2h, 3d, 1w"

    /// `nil` when `text` is not of the relative shape; `.some(nil)` when it overflows.
    private static func relativeMilliseconds(_ text: String) -> UInt64?? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, let unit = bytes.last else { return nil }
        let digits = bytes.dropLast()
        guard digits.count <= 12, digits.allSatisfy({ $0.isASCIIDigit }) else { return nil }
        let scale: UInt64
        switch unit {
        case UInt8(ascii: "s"): scale = 1000
        case UInt8(ascii: "m"): scale = 60_000
        case UInt8(ascii: "h"): scale = 3_600_000
        case UInt8(ascii: "d"): scale = 86_400_000
        case UInt8(ascii: "w"): scale = 604_800_000
        default: return nil
        }
        let count = digits.reduce(UInt64(0)) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
        let (product, overflow) = count.multipliedReportingOverflow(by: scale)
        return overflow ? .some(nil) : .some(product)
    }

    private static func reason(of error: ImportError) -> String {
        if case .invalidDate(_, let reason) = error { return reason }
        return error.description
    }
}
