import Ferry
import FerryTestSupport
import Foundation
import Testing

/// `ferry sync` with a hub folder (plain, and encrypted for the push and pull), SIGKILLed at
/// points of its progress through a push and through a pull, then run again: the replicas converge with
/// nothing lost and nothing applied twice.
@Suite(.serialized) struct HubKillTests {
    /// A store `laptop` holding what `record(batch, n)` makes, written in batches, and an empty
    /// hub (`encrypted`: sealed, the laptop its first member).
    func laptopAndHub(
        _ directory: TemporaryDirectory, batches: Int = 6, batchSize: Int = 2_000, encrypted: Bool = false,
        record: (Int, Int) -> (id: String, document: JSONValue)
    ) throws -> (laptop: String, hub: String) {
        let laptop = directory.subpath("laptop")
        let hub = directory.subpath("hub")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        if encrypted {
            #expect(try runFerry(["hub", "init", hub, "--encrypt", "--store", laptop, "--scrypt-cost", "10"]).exitCode == 0)
        } else {
            #expect(try runFerry(["hub", "init", hub]).exitCode == 0)
        }
        let store = try Store.open(at: laptop)
        let entity = try EntityName("Note")
        for batch in 0..<batches {
            try store.write((0..<batchSize).map { n in
                let (id, document) = record(batch, n)
                return .put(RecordKey(entity: entity, id: try! RecordID(id)), document)
            })
        }
        store.close()
        return (laptop, hub)
    }

    @Test(arguments: [false, true]) func syncsKilledMidPushAndMidPullConvergeWhenRunAgain(encrypted: Bool) async throws {
        let directory = try TemporaryDirectory()
        let (laptop, hub) = try laptopAndHub(directory, encrypted: encrypted) { chunk, n in ("n\(chunk)-\(n)", ["chunk": .integer(Int64(chunk)), "n": .integer(Int64(n))]) }
        let binary = try ferryBinaryPath()
        // Pushes killed at points of their progress: once they wrote anything to the hub, then
        // once the hub grew by 256 KiB and by 1 MiB (when they get that far). Each run goes on
        // from what the last one wrote.
        for (index, grown) in [Int64(1), 256 << 10, 1 << 20].enumerated() {
            let logs = directory.subpath("push-\(index)")
            try FileSystem.createDirectories(logs)
            let before = folderBytes(hub)
            let child = try ChildProcess(binary, ["sync", laptop, hub], outputDirectory: logs)
            _ = await child.waitForChanges(in: folderAndSubfolders(hub), timeout: 300) { folderBytes(hub) >= before + grown }
            child.kill()
            child.wait()
        }
        let finish = try runFerry(["sync", laptop, hub, "--json"], timeout: 600)
        #expect(finish.exitCode == 0, "\(finish)")

        // A pull into an empty store, killed twice, then finished.
        let phone = directory.subpath("phone")
        #expect(try runFerry(["init", phone, "--name", "phone"]).exitCode == 0)
        if encrypted {
            // The laptop wraps the hub's keys for the phone.
            #expect(try runFerry(["hub", "members", "add", hub, phone, "--store", laptop]).exitCode == 0)
            #expect(!(try folderContents(hub).values.contains { String(decoding: $0, as: UTF8.self).contains("\"chunk\"") }), "plaintext in the hub")
        }
        // Killed once it journaled anything, then once its journal grew by 256 KiB.
        let journal = phone + "/journal"
        for (index, grown) in [Int64(1), 256 << 10].enumerated() {
            let logs = directory.subpath("pull-\(index)")
            try FileSystem.createDirectories(logs)
            let before = folderBytes(journal)
            let child = try ChildProcess(binary, ["sync", phone, hub], outputDirectory: logs)
            _ = await child.waitForChanges(in: [phone, journal], timeout: 300) { folderBytes(journal) >= before + grown }
            child.kill()
            child.wait()
        }
        let pulled = try runFerry(["sync", phone, hub], timeout: 600)
        #expect(pulled.exitCode == 0, "\(pulled)")
        _ = try runFerry(["sync", laptop, hub], timeout: 600)

        let a = try Store.open(at: laptop)
        let b = try Store.open(at: phone)
        #expect(a.recordCount == 12_000)
        #expect(b.recordCount == 12_000)
        #expect(try ReplicaState(a) == ReplicaState(b))
        // Each change once in the phone's journal: its head is the number of changes made.
        #expect(b.headSequence == 12_000)
        a.close()
        b.close()
        for path in [laptop, phone] {
            let verify = try runFerry(["verify", path])
            #expect(verify.exitCode == 0, "\(verify)")
        }
        let again = try runFerry(["sync", phone, hub])
        #expect(again.stdout.hasPrefix("up-to-date"), "\(again)")
    }

    @Test func joinsFromASnapshotKilledHalfWayAreFinishedWhenRunAgain() async throws {
        let directory = try TemporaryDirectory()
        // 6,000 records written twice: the snapshot holds half the history. The joins are cut at
        // points of their progress, not after delays, so they need not be long; the commands get
        // generous deadlines, since on a disk busy with a whole suite's writes and deletions
        // creating files can be many times slower than here (one such run took over 120 s).
        let records = 6_000
        let (laptop, hub) = try laptopAndHub(directory, batches: 12, batchSize: records / 6) { batch, n in
            ("n\(batch % 6 * (records / 6) + n)", ["round": .integer(Int64(batch / 6)), "n": .integer(Int64(n))])
        }
        #expect(try runFerry(["sync", laptop, hub], timeout: 600).exitCode == 0)
        let compacted = try runFerry(["hub", "compact", hub, "--json", "--store", laptop], timeout: 600)
        #expect(compacted.exitCode == 0 && compacted.stdout.contains(#""records":\#(records)"#), "\(compacted)")

        // Joins killed at three points of their progress (below): each goes on from what the last
        // one journaled.
        let desk = directory.subpath("desk")
        #expect(try runFerry(["init", desk, "--name", "desk"]).exitCode == 0)
        let binary = try ferryBinaryPath()
        let base = desk + "/.ferry/base.json"
        @Sendable func joinPending() -> Bool {
            guard let text = try? String(contentsOfFile: base, encoding: .utf8) else { return false }
            return text.contains(#""pending""#) && !text.contains(#""pending": null"#)
        }
        var killedHalfWay = 0
        @Sendable func journalBytes() -> Int64 { folderBytes(desk + "/journal") }
        // Killed once the join has begun (its pending note is on disk), and once its journal has
        // grown by 256 KiB and by 1 MiB of the snapshot's versions (when it gets that far).
        for (index, journaled) in [Int64(0), 256 << 10, 1 << 20].enumerated() {
            let logs = directory.subpath("join-\(index)")
            try FileSystem.createDirectories(logs)
            let journaledBefore = journalBytes()
            let child = try ChildProcess(binary, ["sync", desk, hub], outputDirectory: logs)
            _ = await child.waitForChanges(in: [desk + "/.ferry"], timeout: 300) { joinPending() }
            if journaled > 0 {
                _ = await child.waitForChanges(in: [desk + "/journal"], timeout: 300) { journalBytes() >= journaledBefore + journaled }
            }
            child.kill()
            child.wait()
            guard joinPending() else { continue }  // it finished first
            killedHalfWay += 1
            // Half joined, it syncs with nothing but the hub.
            let elsewhere = try runFerry(["sync", desk, laptop], timeout: 300)
            #expect(elsewhere.exitCode != 0 && elsewhere.stderr.contains("finish the join"), "\(elsewhere)")
        }
        #expect(killedHalfWay > 0, "no join was caught half way")
        let finished = try runFerry(["sync", desk, hub], timeout: 600)
        #expect(finished.exitCode == 0, "\(finished)")
        let a = try Store.open(at: laptop)
        let b = try Store.open(at: desk)
        #expect(b.recordCount == records)
        #expect(try ReplicaState(a) == ReplicaState(b))
        #expect(b.headSequence == UInt64(records), "each version journaled once, however often the join was cut")
        #expect(b.knowledge == a.knowledge)
        a.close()
        b.close()
        let verify = try runFerry(["verify", desk], timeout: 300)
        #expect(verify.exitCode == 0 && verify.stdout.contains("joined from snapshot"), "\(verify)")
        let again = try runFerry(["sync", desk, hub], timeout: 300)
        #expect(again.stdout.hasPrefix("up-to-date"), "\(again)")
    }
}
