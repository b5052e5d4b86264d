import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// A round that moves nothing must not tell the watchers that something changed: else each
/// round of a live sync wakes the next, for ever. Sentinel edits made after it must be the
/// first news the watchers give, in order, so no clock is needed to tell.
@Suite struct QuietRoundTests {
    @Test func aSyncThatMovesNothingIsNoNewsToEitherStoresWatcher() async throws {
        let directory = try TemporaryDirectory()
        let (a, b) = try twoStores(in: directory)
        defer { a.close() }
        _ = try a.put(.object(["t": .integer(1)]), entity: EntityName("Note"), id: RecordID("n1"))
        var options = LiveSync.Options()
        options.interval = .seconds(600)
        _ = try await LiveSync.defaultRound(store: a, peer: .store(b), options: options)

        for (path, name) in [(a.path, "a"), (b, "b")] {
            let watcher = try StoreWatcher(storeAt: path)
            defer { watcher.stop() }
            let quiet = try await LiveSync.defaultRound(store: a, peer: .store(b), options: options)
            #expect(quiet.plan == .upToDate && !quiet.changedAnything)
            try handEdit(path, "sentinel", #"{"t": 2}"#)
            let sentinel = RecordKey(entity: try EntityName("Note"), id: try RecordID("sentinel"))
            var seen = StoreWatcher.Changes()
            while !seen.recordFiles.contains(sentinel) {
                guard let changes = await watcher.changes() else { break }
                seen.recordFiles.formUnion(changes.recordFiles)
                seen.journalChanged = seen.journalChanged || changes.journalChanged
            }
            #expect(seen.recordFiles == [sentinel] && !seen.journalChanged, "store \(name): \(seen)")
            try FileManager.default.removeItem(atPath: path + "/records/Note/sentinel.json")
        }
    }
}
