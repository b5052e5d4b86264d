import Testing
@testable import Ferry

/// The documented rule between Ferry ids and PocketBase ids, and PocketBase locations.
@Suite struct PocketBaseRecordIDTests {
    @Test func idsShapedLikePocketBasesPassThroughOthersAreHashed() {
        #expect(PocketBaseRecordID.backendID(for: "abc123def456ghi") == "abc123def456ghi")
        let hashed = ["note-1", "Note 2", "ABC123DEF456GHI", "abc123def456gh", "é", "", String(repeating: "x", count: 500)]
            .map(PocketBaseRecordID.backendID(for:))
        for id in hashed {
            #expect(PocketBaseRecordID.isBackendShaped(id) && id.hasPrefix("f"), "\(id)")
        }
        #expect(Set(hashed).count == hashed.count)
        #expect(PocketBaseRecordID.backendID(for: "note-1") == PocketBaseRecordID.backendID(for: "note-1"))
        #expect(PocketBaseRecordID.ferryID(backendID: "abc123def456ghi", ferryIDField: "") == "abc123def456ghi")
        #expect(PocketBaseRecordID.ferryID(backendID: hashed[0], ferryIDField: "note-1") == "note-1")
    }

    @Test func theHashIsTheDocumentedOne() {
        // The rule is part of the format (a change orphans every synced record): f and 14
        // base-36 digits of the first 72 bits of SHA-256("ferry-id:" + id), computed by long
        // division here and pinned for one id.
        #expect(PocketBaseRecordID.backendID(for: "note-1") == "f8lj1nsaebrv43v")  // python3: hashlib.sha256(b"ferry-id:note-1"), first 9 bytes, base 36
        #expect(PocketBaseRecordID.backendID(for: "note-1") == Self.reference("note-1"))
        #expect(PocketBaseRecordID.backendID(for: "a/b é") == Self.reference("a/b é"))
    }

    /// The rule written the slow, obvious way.
    static func reference(_ id: String) -> String {
        let digest = SHA256.hash(Array("ferry-id:".utf8) + Array(id.utf8)).bytes
        var digits: [Int] = Array(digest[0..<9]).map(Int.init)  // base 256, most significant first
        var result = ""
        for _ in 0..<14 {
            var remainder = 0
            for index in digits.indices {
                let value = remainder * 256 + digits[index]
                digits[index] = value / 36
                remainder = value % 36
            }
            result = String(Array("0123456789abcdefghijklmnopqrstuvwxyz")[remainder]) + result
        }
        return "f" + result
    }

    @Test func locations() throws {
        #expect(try PocketBaseLocation(parsing: "pocketbase+http://127.0.0.1:8090").baseURL == "http://127.0.0.1:8090")
        #expect(try PocketBaseLocation(parsing: "PocketBase+https://pb.example.com/base/").baseURL == "https://pb.example.com/base")
        for bad in ["http://127.0.0.1:8090", "pocketbase+ftp://x", "pocketbase+http://", "pocketbase+http://u:p@host", "pocketbase+http://h/?a=1"] {
            #expect(throws: BackendError.self, "\(bad)") { try PocketBaseLocation(parsing: bad) }
        }
    }
}
