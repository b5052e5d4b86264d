/// How far ahead a stamp is, for messages, rounded: `2 d 3 h`, `5 h 12 min`, `42 s`.
enum ClockSkewText {
    static func duration(_ milliseconds: UInt64) -> String {
        // Rounded to the unit shown: a stamp made two days ahead a moment ago is "2 d 0 h" ahead.
        if milliseconds >= 86_400_000 - 1_800_000 {
            let hours = (milliseconds + 1_800_000) / 3_600_000
            return "\(hours / 24) d \(hours % 24) h"
        }
        if milliseconds >= 3_600_000 - 30_000 {
            let minutes = (milliseconds + 30_000) / 60_000
            return "\(minutes / 60) h \(minutes % 60) min"
        }
        return "\((milliseconds + 500) / 1000) s"
    }
}
