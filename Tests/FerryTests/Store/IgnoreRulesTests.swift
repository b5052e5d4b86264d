import FerryTestSupport
import Foundation
import Testing

@testable import Ferry

/// Editor, operating-system and cloud-drive files under `records/` are neither records nor
/// problems (issue 52, item 4): a built-in list, extended by the store's `.ferryignore`.
@Suite struct IgnoreRulesTests {
    /// What editors, systems and drives leave in a folder of notes, by path from the store.
    static let leftovers = [
        "records/Note/.todo.json.swp", "records/Note/todo.json~", "records/Note/#todo.json#", "records/Note/.DS_Store",
        "records/Note/Thumbs.db", "records/Note/desktop.ini", "records/Note/.~lock.todo.json#", "records/Note/upload.tmp",
        "records/Note/.dropbox", "records/Note/todo.json.icloud", "records/Note/~$todo.json", "records/Note/.#todo.json",
        "records/Note/Todo (Bob's conflicted copy 2026-01-02).json", "records/Note/._todo.json", "records/.DS_Store",
        "records/Note/todo.sync-conflict-20260102-120000-ABC.json",
    ]

    @Test func theBuiltInListIgnoresWhatEditorsSystemsAndDrivesLeave() {
        let rules = IgnoreRules()
        for path in Self.leftovers { #expect(rules.ignores(path), "\(path)") }
        #expect(rules.ignores("records/Note/.dropbox.cache", isFolder: true))
        #expect(rules.ignores("records/Note/.dropbox.cache/old/x.json"))
        for path in ["records/Note/todo.json", "records/Note/Shopping List.json", "records/Note/^todo.json", "records/Note/notes.txt"] {
            #expect(!rules.ignores(path), "\(path)")
        }
        // Ferry's own: temporary files, and the folders of long ids (which end in `~` too).
        #expect(!rules.ignores("records/Note/.tmp-todo.json-123"))
        #expect(!rules.ignores("records/Note/" + String(repeating: "a", count: 240) + "~/rest.json"))
        #expect(!rules.ignores("records/Note/" + String(repeating: "a", count: 240) + "~", isFolder: true))
    }

    @Test func ferryignoreAddsGlobsFoldersCommentsAndNegation() throws {
        let directory = try TemporaryDirectory()
        try Data("# drafts stay local\n*.md\n!README.md\nrecords/Note/drafts/\nscratch?.json\n\n".utf8)
            .write(to: URL(fileURLWithPath: directory.path + "/.ferryignore"))
        let rules = try IgnoreRules.load(storeRoot: directory.path)
        #expect(rules.ignores("records/Note/plan.md"))
        #expect(!rules.ignores("records/Note/README.md"))
        #expect(rules.ignores("records/Note/drafts", isFolder: true))
        #expect(rules.ignores("records/Note/drafts/x.json"))
        #expect(!rules.ignores("records/Task/drafts/x.json"), "an anchored pattern is matched from the store's root")
        #expect(rules.ignores("records/Note/scratch1.json"))
        #expect(!rules.ignores("records/Note/scratch12.json"))
        #expect(!rules.ignores("records/Note/# drafts stay local"))
        #expect(rules.ignores("records/Note/.DS_Store"), "the built-in list still applies")
    }

    /// The leftovers and a `.ferryignore`d folder are no finding of status, commit or verify.
    @Test func leftoversAreNoFindingOfStatusCommitOrVerify() throws {
        let directory = try TemporaryDirectory()
        let (store, folder) = try HandNamedFileTests.notes(directory)
        try Data("records/Note/drafts/\n".utf8).write(to: URL(fileURLWithPath: store.path + "/.ferryignore"))
        for path in Self.leftovers { try HandNamedFileTests.write(store.path + "/" + path, "junk {") }
        try FileSystem.createDirectory(folder + ".dropbox.cache")
        try HandNamedFileTests.write(folder + ".dropbox.cache/x.json", "junk")
        try FileSystem.createDirectory(folder + "drafts")
        try HandNamedFileTests.write(folder + "drafts/idea.json", "not yet")
        try HandNamedFileTests.write(folder + "Todo.json", #"{"text": "call Bob"}"#)

        let status = try store.status()
        #expect(status.problems.isEmpty, "\(status.problems)")
        #expect(status.edits.map(\.key.id.rawValue) == ["Todo"])
        let report = try store.commit()
        #expect(report.problems.isEmpty && report.committed.count == 1)
        #expect(try store.status().isClean)
        store.close()
        let verified = try StoreVerifier(path: store.path).verify()
        #expect(verified.isClean, "\(verified.findings)")
        // Left as they were.
        for path in Self.leftovers { #expect(FileSystem.exists(store.path + "/" + path), "\(path)") }
    }

    /// docs/FORMAT.md lists the built-in patterns: the list and the doc are one.
    @Test func formatDocumentListsEveryBuiltInPattern() throws {
        let doc = try String(contentsOfFile: SampleFiles.directory + "/../docs/FORMAT.md", encoding: .utf8)
        for pattern in IgnoreRules.builtIn { #expect(doc.contains("`\(pattern)`"), "\(pattern)") }
    }

    /// The store's watcher passes over leftovers (no scan for a swap file), not over a file a
    /// person named (a scan finds it as a record).
    @Test func theWatcherPassesOverLeftoversOnly() throws {
        let directory = try TemporaryDirectory()
        let (store, folder) = try HandNamedFileTests.notes(directory)
        defer { store.close() }
        let key = RecordKey(entity: HandNamedFileTests.note, id: try RecordID("first"))
        func changes(after write: () throws -> Void) throws -> StoreWatcher.Changes {
            let watcher = try StoreWatcher(storeAt: store.path)
            defer { watcher.stop() }
            try write()
            // The kernel reports in order: once the record's edit is heard, so is what came before.
            try HandNamedFileTests.write(store.layout.recordFile(key), #"{"text": "edited"}"#)
            var all = StoreWatcher.Changes()
            let deadline = ContinuousClock.now.advanced(by: .seconds(60))
            while !all.recordFiles.contains(key) && ContinuousClock.now < deadline {
                guard let next = watcher.nextChanges(timeout: .seconds(1)) else { continue }
                all.recordFiles.formUnion(next.recordFiles)
                all.otherFilesChanged = all.otherFilesChanged || next.otherFilesChanged
            }
            #expect(all.recordFiles.contains(key))
            return all
        }
        let leftovers = try changes {
            for name in [".first.json.swp", ".DS_Store", "first.json~"] { try HandNamedFileTests.write(folder + name, "junk") }
        }
        #expect(!leftovers.otherFilesChanged)
        let named = try changes { try HandNamedFileTests.write(folder + "Todo.json", "{}") }
        #expect(named.otherFilesChanged)
    }

    /// `ferry diff --files` (a comparison of record files) sees no difference in leftovers.
    @Test func leftoversAreNoDifferenceBetweenReplicas() async throws {
        let directory = try TemporaryDirectory()
        let (laptop, folder) = try HandNamedFileTests.notes(directory, "laptop")
        defer { laptop.close() }
        let phone = try Store.create(at: directory.subpath("phone"))
        defer { phone.close() }
        _ = try await laptop.sync(with: FolderTransport(path: phone.path))
        for name in [".first.json.swp", ".DS_Store", "first.json~"] { try HandNamedFileTests.write(folder + name, "junk") }
        let comparison = try laptop.compare(with: phone, includingFiles: true)
        #expect(comparison.files.isEmpty, "\(comparison.files)")
    }
}
