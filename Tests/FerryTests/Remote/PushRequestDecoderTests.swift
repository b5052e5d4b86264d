import Testing
@testable import Ferry

/// A push body is read as it arrives: whatever the pieces, the push is the one a whole read
/// gives, and a bad body is refused at its first bad byte or change, naming it.
@Suite struct PushRequestDecoderTests {
    /// Changes whose documents hold every byte the outer scan must not mistake for structure.
    static func changes() throws -> [Change] {
        let origin = ReplicaID.generate()
        let documents: [JSONValue] = [
            ["t": "a ] b } c , d : e", "q": "say \"hi\" \\ ", "n": [[1, [2, [3]]], ["]": "["]]],
            ["e": "\u{e9}\u{1F600}\n\t", "empty": [:], "list": [], "z": nil, "b": true, "f": -1.5e3],
            ["{": "}", "\\": "\\\\\"", "deep": [[[[["x"]]]]]],
        ]
        var result: [Change] = []
        var parent = SHA256Digest.zero
        for (index, document) in documents.enumerated() {
            var change = Change(
                origin: origin, counter: UInt64(index + 1), timestamp: HybridTimestamp(physical: 1_700_000_000_000 + UInt64(index)),
                key: RecordKey(entity: try EntityName("Note"), id: try RecordID("n\(index)")),
                operation: .put(document), version: VersionVector([origin: UInt64(index + 1)]))
            change.chain = ChangeChain(change, parent: parent)
            parent = change.digest
            result.append(change)
        }
        var delete = Change(
            origin: origin, counter: 4, timestamp: HybridTimestamp(physical: 1_700_000_000_010),
            key: result[0].key, operation: .delete, version: VersionVector([origin: 4]))
        delete.chain = ChangeChain(delete, parent: parent)
        result.append(delete)
        return result
    }

    static func decode(_ body: [UInt8], pieces: Int) throws(RemoteMessageError) -> PushRequest {
        var decoder = PushRequestDecoder()
        var start = 0
        while start < body.count {
            let end = min(body.count, start + pieces)
            try decoder.feed(Array(body[start..<end]))
            start = end
        }
        return try decoder.finish()
    }

    static func error(_ text: String) -> String {
        do {
            _ = try decode(Array(text.utf8), pieces: 3)
            return "no error"
        } catch {
            return error.reason
        }
    }

    @Test func anyPiecesGiveTheWholeReadsPush() throws {
        let expected = PushRequest(changes: try Self.changes(), maximumSkew: 1234)
        let encoded = expected.changes.map { String(decoding: $0.canonicalJSONBytes(), as: UTF8.self) }
        let bodies = [
            expected.bodyBytes(),
            // Whitespace everywhere JSON allows it, and the members in the other order.
            Array(" \n{ \"maximumSkew\" :\t1234 ,\r\n \"changes\" : [ \(encoded.joined(separator: " ,\n ")) ] } \n".utf8),
        ]
        for body in bodies {
            for pieces in [1, 2, 3, 7, 64, body.count] {
                #expect(try Self.decode(body, pieces: pieces) == expected, "pieces of \(pieces)")
            }
        }
        #expect(try Self.decode(Array(#"{"changes":[]}"#.utf8), pieces: 1) == PushRequest(changes: []))
    }

    @Test func badBodiesAreNamed() throws {
        let good = String(decoding: try Self.changes()[0].canonicalJSONBytes(), as: UTF8.self)
        let cases: [(String, String)] = [
            ("", "the push body is not JSON: it is empty"),
            ("[]", "the push body must be a JSON object, not an array"),
            ("x", "the push body is not JSON: 'x' at byte 0 where '{' should be"),
            (#"{"changes":["#, "the push body is not JSON: it ends early, at byte 12"),
            (#"{"changes":[]} x"#, "the push body is not JSON: 'x' at byte 15 where nothing more should be"),
            (#"{"changes":[],"other":1}"#, #"the push body has an unknown member "other""#),
            (#"{"changes":[],"changes":[]}"#, #"the push body has the member "changes" twice"#),
            (#"{"changes":{}}"#, "changes: must be an array of changes"),
            (#"{"maximumSkew":5}"#, "changes: must be an array of changes"),
            (#"{"changes":[1]}"#, "changes[0]: must be an object, not number"),
            (#"{"changes":["x"]}"#, "changes[0]: must be an object, not string"),
            ("{\"changes\":[\(good),]}", "the push body is not JSON: ']' at byte \(13 + good.utf8.count) where a change should be"),
            ("{\"changes\":[\(good),{\"x\":1}]}", #"changes[1]: unknown member "x""#),
            ("{\"changes\":[\(good) \(good)]}", "the push body is not JSON: '{' at byte \(13 + good.utf8.count) where ',' or ']' should be"),
            (#"{"changes":[{"a":[}]}"#, "changes[0]: not JSON"),
            (#"{"changes":[],"maximumSkew":-1}"#, "maximumSkew: must be a non-negative integer"),
            (#"{"changes":[],"maximumSkew":"1"}"#, "maximumSkew: must be a non-negative integer"),
            (#"{"changes":[],"maximumSkew":}"#, "the push body is not JSON: '}' at byte 28 where a value should be"),
            (#"{"changes" []}"#, "the push body is not JSON: '[' at byte 11 where ':' should be"),
            (#"{"changes":[] "maximumSkew":1}"#, "the push body is not JSON: '\"' at byte 14 where ',' or '}' should be"),
        ]
        for (body, message) in cases {
            #expect(Self.error(body).hasPrefix(message), "\(body)")
        }
        // A change without its digest is named too.
        var unsigned = try Self.changes()[0]
        unsigned.chain = nil
        #expect(Self.error(String(decoding: PushRequest(changes: [unsigned]).bodyBytes(), as: UTF8.self))
            == #"changes[0].digest: every pushed change carries "digest" and "parent""#)
        // A value of another member is bounded: it cannot grow without end.
        #expect(Self.error(#"{"maximumSkew":"# + String(repeating: "1", count: 5000)).hasPrefix(
            "the push body has the value of \"maximumSkew\" longer than 4096 bytes"))
    }

    @Test func aBadChangeIsRefusedBeforeTheRestArrives() throws {
        let good = try Self.changes()[0].canonicalJSONBytes()
        var decoder = PushRequestDecoder()
        try decoder.feed(Array(#"{"changes":["#.utf8) + good + Array(",".utf8))
        #expect(decoder.changeCount == 1)
        // What the decoder holds is the parsed change, not the bytes read.
        #expect(decoder.retainedBytes >= PushRequestDecoder.parsedSize(ofEncoded: good.count))
        #expect(decoder.retainedBytes < 4 * PushRequestDecoder.parsedSize(ofEncoded: good.count))
        // The second change is refused the moment it closes, though the body goes on.
        #expect(throws: RemoteMessageError("changes[1].counter: must be a positive integer")) {
            try decoder.feed(Array(#"{"origin":1} , {"#.utf8))
        }
    }
}
