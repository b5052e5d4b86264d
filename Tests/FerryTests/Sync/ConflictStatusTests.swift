import Testing
import FerryTestSupport
@testable import Ferry

/// A conflicted record's file shows the winner. When the store object did not write that file
/// itself (another process or store object did, so it holds no stamp of it), `status` must still
/// confirm it by content rather than report a hand edit, or `commit` would silently resolve
/// the conflict in favour of the winner.
@Suite struct ConflictStatusTests {
    let notes = try! EntityName("Note")

    @Test func conflictWrittenByAnotherStoreObjectIsNotAnEdit() async throws {
        let directory = try TemporaryDirectory()
        let a = try Store.create(at: directory.subpath("a"), name: "a")
        let b = try Store.create(at: directory.subpath("b"), name: "b")
        let key = RecordKey(entity: notes, id: try RecordID("n"))
        try a.put(["v": 0], entity: notes, id: key.id)
        _ = try await b.sync(with: FolderTransport(path: a.path))
        try a.put(["v": 1, "by": "a"], entity: notes, id: key.id)
        try b.put(["v": 2, "by": "b"], entity: notes, id: key.id)
        // B pushes into A through a second store object on A's folder: `a` learns of the
        // conflict from the journal, and of its files nothing.
        _ = try await b.sync(with: FolderTransport(path: a.path))
        #expect(try a.conflicts().map(\.key) == [key])

        let status = try a.status()
        #expect(status.isClean, "\(status.edits.map { "\($0.kind) \($0.path)" })")
        let report = try a.commit()
        #expect(report.committed.isEmpty)
        #expect(try a.conflicts().map(\.key) == [key], "commit must not resolve the conflict")
    }
}
