import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// Through the library: a conflict ends only when someone resolves it (issue 55, item 3).
@Suite struct ConflictEndingLibraryTests {
    let notes = try! EntityName("Note")

    /// Stores `a` and `b` whose record `n` is in conflict on both.
    func conflictedPair(in directory: TemporaryDirectory) async throws -> (a: Store, b: Store, key: RecordKey) {
        let a = try Store.create(at: directory.subpath("a"), name: "a")
        let b = try Store.create(at: directory.subpath("b"), name: "b")
        let key = RecordKey(entity: notes, id: try RecordID("n"))
        try a.put(["v": 0], entity: notes, id: key.id)
        _ = try await a.sync(with: FolderTransport(path: b.path))
        try a.put(["v": 1, "by": "a"], entity: notes, id: key.id)
        try b.put(["v": 2, "by": "b"], entity: notes, id: key.id)
        _ = try await a.sync(with: FolderTransport(path: b.path))
        #expect(try a.conflicts().map(\.key) == [key])
        return (a, b, key)
    }

    @Test func putDeleteAndCommitLeaveTheConflictOnBothReplicas() async throws {
        let directory = try TemporaryDirectory()
        let (a, b, key) = try await conflictedPair(in: directory)
        let head = a.head
        #expect(throws: StoreError.conflictUnresolved(key, path: a.path)) { try a.put(["v": 3], entity: notes, id: key.id) }
        #expect(throws: StoreError.conflictUnresolved(key, path: a.path)) { try a.delete(entity: notes, id: key.id) }
        try Data(#"{"v": "by hand"}"#.utf8).write(to: URL(fileURLWithPath: a.layout.recordFile(key)))
        let report = try a.commit()
        #expect(report.committed.isEmpty)
        #expect(report.problems.map(\.path) == ["records/Note/n.json"])
        #expect(a.head.sequence == head.sequence, "nothing was journaled")
        // Synced both ways, both still hold the conflict, with both versions.
        _ = try await a.sync(with: FolderTransport(path: b.path))
        _ = try await b.sync(with: FolderTransport(path: a.path))
        for store in [a, b] {
            #expect(try store.conflicts().map(\.key) == [key])
            #expect(try store.versions(of: key).count == 2)
        }
        // Resolving takes the hand edit (journaled first) and ends it everywhere.
        try a.resolve(key, with: ["v": "by hand"])
        _ = try await a.sync(with: FolderTransport(path: b.path))
        for store in [a, b] {
            #expect(try store.conflicts().isEmpty)
            #expect(try store.get(entity: notes, id: key.id) == ["v": "by hand"])
        }
    }
}
