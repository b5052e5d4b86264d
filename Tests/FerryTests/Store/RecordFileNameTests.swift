import Testing
import FerryTestSupport
@testable import Ferry

@Suite struct RecordFileNameTests {
    @Test(arguments: [
        ("42", "42.json"), ("Bob", "^bob.json"), ("../x", "%2E.%2Fx.json"), ("a/b", "a%2Fb.json"),
        ("\\", "%5C.json"), (".", "%2E.json"), ("..", "%2E..json"), ("\u{0}", "%00.json"), ("tab\there", "tab%09here.json"),
        ("café", "caf%C3%A9.json"), ("100%", "100%25.json"), ("^a", "%5Ea.json"), ("a~b", "a%7Eb.json"),
        ("UPPER-lower_1.2", "^u^p^p^e^r-lower_1.2.json"),
    ])
    func encodes(id: String, expected: String) throws {
        let recordID = try RecordID(id)
        let path = RecordFileName.relativePath(for: recordID)
        #expect(path == expected)
        #expect(RecordFileName.id(fromRelativePath: path) == recordID)
        #expect(!path.contains("/"))
        #expect(!path.hasPrefix("."))
    }

    @Test func idsDifferingOnlyInCaseNeverShareAFileOnACaseInsensitiveDisk() throws {
        let ids = ["a", "A", "ab", "aB", "Ab", "AB", "%41", "^a", "é", "É", "e\u{301}"]
        let folded = try ids.map { RecordFileName.relativePath(for: try RecordID($0)).lowercased() }
        #expect(Set(folded).count == ids.count)
    }

    @Test func composedAndDecomposedAccentsAreTwoRecords() throws {
        let composed = try RecordID("\u{E9}")
        let decomposed = try RecordID("e\u{301}")
        #expect(composed != decomposed)
        #expect(RecordFileName.relativePath(for: composed) != RecordFileName.relativePath(for: decomposed))
    }

    @Test func nonCanonicalNamesAreRejected() {
        for name in ["Bob.json", "%2e.json", "%41.json", ".x.json", "a%2.json", "a%zz.json", "x", "^.json", "a~.json", ".json"] {
            #expect(RecordFileName.id(fromRelativePath: name) == nil, "\(name)")
        }
    }

    @Test func longIdsAreSplitIntoFoldersAndStayReversible() throws {
        let id = try RecordID(String(repeating: "Z", count: 256))  // 512 encoded bytes
        let path = RecordFileName.relativePath(for: id)
        let pieces = path.split(separator: "/")
        #expect(pieces.count == 3)
        #expect(pieces.dropLast().allSatisfy { $0.hasSuffix("~") && $0.utf8.count == 241 })
        #expect(pieces.allSatisfy { $0.utf8.count <= 255 })
        #expect(RecordFileName.id(fromRelativePath: path) == id)
    }

    @Test func idsOverTheLimitOrEmptyAreRefused() {
        #expect(throws: ValidationError.self) { try RecordID("") }
        #expect(throws: ValidationError.self) { try RecordID(String(repeating: "x", count: 257)) }
        #expect(throws: ValidationError.self) { try EntityName("") }
        #expect(throws: ValidationError.self) { try EntityName("a-b") }
        #expect(throws: ValidationError.self) { try EntityName(String(repeating: "a", count: 65)) }
        #expect(throws: ValidationError.self) { try EntityName("_x") }
    }

    @Test func traversalIdsStayInsideTheEntityFolder() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        let entity = try EntityName("Note")
        for text in ["../x", "../../etc/passwd", "a/b", "/abs", ".", "..", "\\", "nul\u{0}byte"] {
            try store.put(["id": .string(text)], entity: entity, id: RecordID(text))
        }
        let files = try FileSystem.contents(ofDirectory: directory.subpath("s/records/Note")).map(\.name)
        #expect(files.count == 8)
        #expect(try FileSystem.contents(ofDirectory: directory.subpath("s")).map(\.name).sorted() == [".ferry", "conflicts", "ferry.json", "journal", "records"])
        #expect(try store.get(entity: entity, id: RecordID("../x")) == ["id": "../x"])
    }
}

/// The fast paths of the id encoding (ids that encode to themselves; sort keys built in
/// place) against the byte-by-byte encoding, and ``ByteOrder`` against the standard library.
@Suite struct RecordFileNameFastPathTests {
    @Test func everyIdEncodesAsTheByteByByteEncodingDoes() throws {
        var random = SeededRandom(seed: 7)
        let alphabet = Array("abcxyz0129-_.ABZ /%^~é\u{1}")
        for _ in 0..<3000 {
            let length = Int.random(in: 1...12, using: &random)
            let text = String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] })
            let id = try RecordID(text)
            var bytes: [UInt8] = []
            RecordFileName.appendEncoded(id, to: &bytes)
            #expect(RecordFileName.encode(id) == String(decoding: bytes, as: UTF8.self), "\(text)")
            #expect(RecordFileName.decode(RecordFileName.encode(id)) == id, "\(text)")
            let key = RecordKey(entity: try EntityName("Item"), id: id)
            #expect(IndexRecordLine.sortKey(key) == Array("Item\t".utf8) + bytes)
        }
    }

    @Test func byteOrderAgreesWithTheStandardLibrary() {
        var random = SeededRandom(seed: 11)
        for _ in 0..<3000 {
            let a = (0..<Int.random(in: 0...6, using: &random)).map { _ in UInt8.random(in: 0...3, using: &random) * 85 }
            let b = (0..<Int.random(in: 0...6, using: &random)).map { _ in UInt8.random(in: 0...3, using: &random) * 85 }
            #expect(ByteOrder.precedes(a, b) == a.lexicographicallyPrecedes(b), "\(a) \(b)")
            #expect((ByteOrder.compare(a, b) == 0) == (a == b), "\(a) \(b)")
            let slice = (a + [10] + b)[1...]
            #expect(ByteOrder.firstIndex(of: 10, in: slice) == slice.firstIndex(of: 10), "\(a) \(b)")
            #expect(ByteOrder.firstIndex(of: 170, in: slice) == slice.firstIndex(of: 170), "\(a) \(b)")
        }
    }
}
