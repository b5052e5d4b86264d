import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

@Suite(.eachTestOnItsOwnThread) struct EntityObservationTests {
    @Test func yieldsTheFilteredRecordsNowAndOnEachChangeThatMatters() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/a", name: "a")
        let note = try EntityName("Note"), tag = try EntityName("Tag")
        _ = try store.put(.object(["title": .string("milk"), "done": .bool(false)]), entity: note, id: RecordID("n1"))
        _ = try store.put(.object(["title": .string("eggs"), "done": .bool(true)]), entity: note, id: RecordID("n2"))

        let seen = try await Deadline.run(within: 300) { () -> [[String]] in
            var seen: [[String]] = []
            for try await notes in store.observe(note, where: { _, document in document["done"] != .bool(true) }) {
                seen.append(notes.map { $0.id.rawValue })
                if seen.count == 1 {
                    // Another entity, and a change that leaves the open notes as they were: nothing yielded.
                    _ = try store.put(.object(["name": .string("home")]), entity: tag, id: RecordID("t1"))
                    _ = try store.put(.object(["title": .string("eggs!"), "done": .bool(true)]), entity: note, id: RecordID("n2"))
                    // Then a hand edit that opens n2 again, seen once journaled (what a watch does).
                    let file = try FileDescriptor.open(store.layout.recordFile(RecordKey(entity: note, id: try RecordID("n2"))), .writeOnly, options: [.truncate])
                    try file.closeAfter { try file.writeAll(Array(#"{"title": "eggs", "done": false}"#.utf8)) }
                    _ = try store.commit()
                }
                if seen.count == 2 { break }
            }
            return seen
        }
        #expect(seen == [["n1"], ["n1", "n2"]])
    }
}
