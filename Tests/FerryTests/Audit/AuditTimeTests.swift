import Testing
@testable import Ferry

@Suite struct AuditTimeTests {
    let now: UInt64 = 1_763_757_283_000

    @Test(arguments: [("30s", 30_000), ("30m", 1_800_000), ("2h", 7_200_000), ("3d", 259_200_000), ("1w", 604_800_000)])
    func relativeFormsCountBackFromNow(text: String, milliseconds: UInt64) throws {
        #expect(try AuditTime(parsing: text, now: now).milliseconds == now - milliseconds)
    }

    @Test func iso8601DatesAndTimes() throws {
        #expect(try AuditTime(parsing: "2025-11-21", now: now).description == "2025-11-21T00:00:00.000Z")
        #expect(try AuditTime(parsing: "2025-11-21T20:30", now: now).description == "2025-11-21T20:30:00.000Z")
        #expect(try AuditTime(parsing: "2025-11-21T20:30:00+01:00", now: now).description == "2025-11-21T19:30:00.000Z")
        #expect(try AuditTime(parsing: "2025-11-21 20:30:05.250Z", now: now).description == "2025-11-21T20:30:05.250Z")
    }

    @Test(arguments: ["", "yesterday", "2x", "h", "-2h", "2025-13-01", "2025-11-21T25:00", "1700000000", "3 d"])
    func otherTextIsRejectedWithTheAcceptedForms(text: String) {
        #expect {
            try AuditTime(parsing: text, now: now)
        } throws: { error in
            guard let error = error as? AuditError, case .invalidTime(let given, let reason) = error else { return false }
            return given == text && reason.contains("2h")
        }
    }

    @Test func farBackClampsAtTheEpoch() throws {
        #expect(try AuditTime(parsing: "99999w", now: now).milliseconds == 0)
    }
}
