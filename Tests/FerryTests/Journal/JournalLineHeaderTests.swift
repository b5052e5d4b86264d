import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// The journal line header (origin and counter, read without decoding the document) against the
/// general decoder: the same two values for every line it reads, the top-level members only
/// whatever the document holds, and `nil` (so a whole decode, with its errors) for anything it
/// does not understand.
@Suite struct JournalLineHeaderTests {
    func header(_ text: String) -> JournalLineHeader? {
        Array(text.utf8).withUnsafeBytes { JournalLineHeader.read($0) }
    }

    @Test(arguments: [11, 12, 13])
    func agreesWithTheGeneralDecoder(seed: UInt64) throws {
        let generator = CanonicalEntryDecoderTests()
        var random = CanonicalEntryDecoderTests.Random(state: seed)
        let replicas = (0..<3).map { _ in ReplicaID.generate() }
        for _ in 0..<300 {
            let line = generator.line(try generator.entry(&random, replicas: replicas))
            let decoded = try #require(generator.slow(line))
            let read = try #require(line.withUnsafeBytes { JournalLineHeader.read($0) }, "seed \(seed): \(String(decoding: line, as: UTF8.self))")
            #expect(read.origin == decoded.change.origin && read.counter == decoded.change.counter, "seed \(seed)")
        }
    }

    /// A document may hold members named `origin` and `counter`, strings with quotes, braces and
    /// backslashes: only the entry's own members count.
    @Test func membersInsideTheDocumentAreNotTheEntrys() throws {
        let replica = ReplicaID.generate()
        let other = ReplicaID.generate()
        let line = #"{"counter":7,"doc":{"a":["}",{"counter":99,"origin":"\#(other.rawValue)"}],"b":"\"origin\":\"x\\","counter":1},"#
            + #""entity":"Note","id":"n\"1}","op":"put","origin":"\#(replica.rawValue)","seq":3,"vv":{"\#(replica.rawValue)":7}}"#
        let read = try #require(header(line))
        #expect(read.origin == replica)
        #expect(read.counter == 7)
    }

    @Test func anythingItDoesNotUnderstandIsLeftToTheWholeDecode() {
        let replica = ReplicaID.generate().rawValue
        for line in [
            "",
            "[]",
            #"{"counter":7}"#,  // no origin
            #"{"origin":"\#(replica)"}"#,  // no counter
            #"{"counter":-7,"origin":"\#(replica)"}"#,
            #"{"counter":7.5,"origin":"\#(replica)"}"#,
            #"{"counter":07,"origin":"\#(replica)"}"#,
            #"{"counter":99999999999999999999,"origin":"\#(replica)"}"#,
            #"{"counter":"7","origin":"\#(replica)"}"#,
            #"{"counter":7,"origin":"not a replica"}"#,
            #"{"counter":7,"counter":8,"origin":"\#(replica)"}"#,  // a member twice
            #"{"counter":7,"origin":"\#(replica)"} "#,  // bytes after the object
            #"{"counter":7,"doc":{"a":1,"origin":"\#(replica)"}"#,  // cut short
            #"{ "counter":7,"origin":"\#(replica)"}"#,  // not the journal's layout
            #"{"counter":7,"doc":"unterminated,"origin":"\#(replica)"}"#,
        ] {
            #expect(header(line).map { "\($0.origin) \($0.counter)" } == nil, "\(line)")
        }
    }

    /// A store serving a requester that has most of its journal (the push after a join reads it
    /// back) gives exactly what it gave before: the entries the requester lacks, the same
    /// positions, whether the others were decoded or passed over.
    @Test func changesForARequesterThatHasSomeAreTheSame() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("store"))
        defer { store.close() }
        let entity = try EntityName("Note")
        for round in 0..<3 {
            try store.write((0..<40).map { n in .put(RecordKey(entity: entity, id: try RecordID("n\(n)")), ["round": .integer(Int64(round))]) })
        }
        let own = store.replicaID
        for known: UInt64 in [0, 1, 39, 40, 41, 80, 119, 120] {
            var knowledge = VersionVector()
            knowledge[own] = known
            var position: UInt64 = 0
            var counters: [UInt64] = []
            var pages = 0
            while true {
                let batch = try store.changes(after: position, excluding: knowledge, limit: 7)
                counters += batch.changes.map(\.counter)
                #expect(batch.sequences == batch.changes.map(\.counter), "in this store each change's counter is its position")
                position = batch.through
                pages += 1
                if batch.through >= batch.head { break }
            }
            #expect(counters == Array((known + 1)..<121).filter { $0 > 0 }, "knowing \(known)")
            #expect(position == 120)
            #expect(pages >= 1)
        }
    }
}
