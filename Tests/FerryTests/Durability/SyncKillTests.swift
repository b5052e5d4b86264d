import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGKILLs `ferry-torture syncer` (random edits on two stores, then syncs in random
/// directions with random policies) at random moments; after each kill a normal sync must
/// make both stores identical, with no change journaled twice and no acknowledged edit lost.
///
/// `FERRY_SYNC_KILLS` (default 15) and `FERRY_SYNC_SEED` let `scripts/crash-test.sh` run more.
@Suite(.serialized) struct SyncKillTests {
    let notes = try! EntityName("Note")

    @Test func killedSyncConvergesWhenRunAgain() async throws {
        let kills = Int(SeededRandom.environmentNumber("FERRY_SYNC_KILLS", default: 15))
        let seed = SeededRandom.environmentNumber("FERRY_SYNC_SEED", default: 4_242)
        var random = SeededRandom(seed: seed)
        let binary = try tortureBinaryPath()
        let directory = try TemporaryDirectory(prefix: "ferry-sync-crash")
        let pathA = directory.subpath("a")
        let pathB = directory.subpath("b")
        do {
            let a = try Store.create(at: pathA, name: "a")
            let b = try Store.create(at: pathB, name: "b")
            for index in 0..<5 {
                try a.put(["from": "a", "n": .integer(Int64(index))], entity: notes, id: RecordID("n\(index)"))
                try b.put(["from": "b", "n": .integer(Int64(index))], entity: notes, id: RecordID("n\(index + 3)"))
            }
        }
        var edits: [SyncerLog.Edit] = []
        var completedSyncs = 0
        for kill in 0..<kills {
            let runSeed = seed &+ UInt64(kill) &* 104_729
            let context = Comment(rawValue: "seed \(seed), kill \(kill), syncer seed \(runSeed), stores \(pathA) \(pathB)")
            let scratch = directory.subpath("run")
            try FileSystem.createDirectory(scratch)
            let child = try ChildProcess(binary, ["syncer", pathA, pathB, "\(runSeed)"], outputDirectory: scratch)
            let delay = UInt32.random(in: 1_000...400_000, using: &random)
            let ready = await child.kill(microseconds: delay, afterLineStartingWith: "ready")
            #expect(ready, "the syncer never became ready: \(child.errorOutput); \(context)")
            let code = child.wait()
            #expect(code == 128 + SIGKILL, "the syncer stopped on its own (\(code)): \(child.errorOutput); \(context)")
            let log = SyncerLog(lines: child.outputLines)
            #expect(log.malformed.isEmpty, "unreadable syncer output \(log.malformed); \(context)")
            edits += log.edits
            completedSyncs += log.completedSyncs
            guard try await check(pathA, pathB, edits: edits, context: context) else { break }
        }
        print("sync crash test: \(kills) kills (seed \(seed)), \(edits.count) acknowledged edits, \(completedSyncs) syncs completed before the kills")
    }

    /// Opens both stores (recovering), syncs them normally and checks the result. Returns
    /// false after a failure.
    private func check(_ pathA: String, _ pathB: String, edits: [SyncerLog.Edit], context: Comment) async throws -> Bool {
        let a: Store
        let b: Store
        do {
            a = try Store.open(at: pathA)
            b = try Store.open(at: pathB)
        } catch {
            Issue.record("a store does not open after the kill: \(error); \(context)")
            return false
        }
        defer {
            a.close()
            b.close()
        }
        var options = SyncOptions()
        options.force = true
        do { _ = try await a.sync(with: FolderTransport(path: pathB), options: options) } catch {
            Issue.record("the sync after the kill failed: \(error); \(context)")
            return false
        }
        var ok = true
        let stateA = try ReplicaState(a)
        let differences = stateA.differences(from: try ReplicaState(b))
        #expect(differences.isEmpty, "A and B differ: \(differences.prefix(5)); \(context)")
        #expect(try a.currentKnowledge() == b.currentKnowledge(), "A and B have seen different changes; \(context)")
        ok = ok && differences.isEmpty

        var ledger = WriteLedger()
        for (label, store) in [("A", a), ("B", b)] {
            let problems = try JournalAudit.problems(in: store)  // includes changes journaled twice
            #expect(problems.isEmpty, "\(label) journal: \(problems.prefix(5)); \(context)")
            let entries = Dictionary(try store.journalEntries().map { ($0.change.identity, $0) }, uniquingKeysWith: { first, _ in first })
            var missing: [String] = []
            for edit in edits {
                guard let entry = entries[edit.identity] else {
                    missing.append("\(edit.identity) (\(edit.key), made on \(edit.store))")
                    continue
                }
                let hash = entry.change.operation.document.map { SHA256.hash($0.canonicalBytes()).hex }
                if entry.change.key != edit.key || entry.change.isDelete != edit.isDelete || hash != edit.hash {
                    missing.append("\(edit.identity) journaled with other content")
                }
                if label == "A" {
                    ledger.record(.init(identity: edit.identity, key: edit.key, version: entry.change.version, isDelete: edit.isDelete))
                }
            }
            #expect(missing.isEmpty, "acknowledged edits missing from \(label): \(missing.prefix(5)); \(context)")
            let unaccounted = try ledger.unaccounted(in: store)
            #expect(unaccounted.isEmpty, "\(label): \(unaccounted.prefix(5)); \(context)")
            let status = try store.status()
            #expect(status.isClean, "\(label) status: \(status.edits.map { "\($0.kind) \($0.path)" }) \(status.problems); \(context)")
            let strayFiles = try conflictFileProblems(store)
            #expect(strayFiles.isEmpty, "\(label) conflict files: \(strayFiles.prefix(5)); \(context)")
            ok = ok && problems.isEmpty && missing.isEmpty && unaccounted.isEmpty && status.isClean
        }
        let again = try await b.sync(with: FolderTransport(path: pathA), options: options)
        #expect(again.pulled == 0 && again.pushed == 0, "a second sync still moved changes (\(again.pulled), \(again.pushed)); \(context)")
        return ok
    }

    /// Conflict files that are missing, or left over for a loser no longer listed.
    private func conflictFileProblems(_ store: Store) throws -> [String] {
        var expected = Set<String>()
        for conflict in try store.conflicts() {
            for loser in conflict.losers { if let file = loser.file { expected.insert(file) } }
        }
        var found = Set<String>()
        func walk(_ relative: String) throws {
            for entry in try FileSystem.contents(ofDirectory: store.path + "/" + relative) {
                if entry.name.hasPrefix(".tmp-") { continue }
                if entry.kind == .directory { try walk(relative + "/" + entry.name) } else { found.insert(relative + "/" + entry.name) }
            }
        }
        if FileSystem.isDirectory(store.path + "/conflicts") { try walk("conflicts") }
        return expected.subtracting(found).sorted().map { "missing \($0)" } + found.subtracting(expected).sorted().map { "stale \($0)" }
    }
}
