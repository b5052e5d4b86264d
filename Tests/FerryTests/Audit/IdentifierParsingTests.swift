import Foundation
import Testing
@testable import Ferry

/// The hand-written parsers that replay relies on (sped up for verify): replica ids are exactly
/// the canonical 8-4-4-4-12 form (Foundation's parser also took some malformed text), and equal
/// record ids hash alike.
@Suite struct IdentifierParsingTests {
    @Test func replicaIDsAreCanonicalUUIDsInAnyCase() {
        let uuid = UUID()
        #expect(ReplicaID(uuid.uuidString)?.rawValue == uuid.uuidString.lowercased())
        #expect(ReplicaID(uuid.uuidString.lowercased())?.rawValue == uuid.uuidString.lowercased())
        for text in [
            "", "5b2c91e0", "5b2c91e0-1234-4abc-8def-0123456789ab-", "5b2c91e0+1234-4abc-8def-0123456789ab",
            "5b2c91e01234-4abc-8def-0123456789ab0", "5b2c91e0-1234-4abc-8def-0123456789ag", " 5b2c91e0-1234-4abc-8def-0123456789a",
        ] {
            #expect(ReplicaID(text) == nil, "\(text)")
        }
    }

    @Test func equalRecordIDsHashAlike() throws {
        let ids = ["a", "Ada", "é", "e\u{301}", String(repeating: "x", count: 200)]
        for text in ids {
            let built = String(text.unicodeScalars.map(Character.init))
            var first = Hasher()
            var second = Hasher()
            first.combine(try RecordID(text))
            second.combine(try RecordID(built))
            #expect(first.finalize() == second.finalize())
        }
        let set = Set(try ids.map { try RecordID($0) })
        #expect(set.count == ids.count)
    }
}
