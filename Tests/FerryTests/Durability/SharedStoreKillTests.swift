import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Two `ferry-torture writer` processes share one store (serialized by its lock) and are
/// SIGKILLed at different random moments, so the survivor catches up with, and recovers
/// from, what the killed one left behind while it keeps writing. After both are dead every
/// acknowledged write must be in the journal with exactly its content, every other entry must
/// be a batch one of them had in flight, and the records and their files must match.
///
/// `FERRY_SHARED_KILLS` (default 10) and `FERRY_CRASH_SEED` let `scripts/crash-test.sh` run more.
@Suite(.serialized) struct SharedStoreKillTests {
    @Test func twoWritersKilledAtRandomMomentsLoseNothingAcknowledged() async throws {
        let kills = Int(SeededRandom.environmentNumber("FERRY_SHARED_KILLS", default: 10))
        let seed = SeededRandom.environmentNumber("FERRY_CRASH_SEED", default: 20_251_121)
        var random = SeededRandom(seed: seed ^ 0x2222)
        let binary = try tortureBinaryPath()
        let directory = try TemporaryDirectory(prefix: "ferry-shared-crash")
        var model = WriterModel()
        var storePath = ""
        var acknowledged = 0
        var inFlightSurvived = 0
        for kill in 0..<kills {
            if kill % 5 == 0 {
                if !storePath.isEmpty { try FileSystem.removeTree(storePath) }
                storePath = directory.subpath("store-\(kill)")
                try Store.create(at: storePath, name: "shared").close()
                model = WriterModel()
            }
            let seeds = [seed &+ UInt64(kill) &* 7_919 &+ 1, seed &+ UInt64(kill) &* 7_919 &+ 2]
            let context = Comment(rawValue: "seed \(seed), kill \(kill), writer seeds \(seeds), store \(storePath)")
            var children: [ChildProcess] = []
            for (number, writerSeed) in seeds.enumerated() {
                let scratch = directory.subpath("run\(number)")
                try FileSystem.createDirectory(scratch)
                children.append(
                    try ChildProcess(binary, ["writer", storePath, "\(writerSeed)", "--batch-max", "20"], outputDirectory: scratch))
            }
            for child in children {
                let ready = await child.waitForOutput(lineStartingWith: "ready", timeout: 120)
                #expect(ready, "a writer never became ready: \(child.errorOutput); \(context)")
            }
            for child in children.shuffled(using: &random) {
                _ = await child.kill(microseconds: UInt32.random(in: 1_000...150_000, using: &random))
                let code = child.wait()
                #expect(code == 128 + SIGKILL, "a writer stopped on its own (\(code)): \(child.errorOutput); \(context)")
            }
            let logs = children.map { WriterLog(lines: $0.outputLines) }
            guard
                try check(
                    storePath, logs: logs, model: &model, acknowledged: &acknowledged, inFlightSurvived: &inFlightSurvived,
                    context: context)
            else { break }
        }
        print(
            "shared-store crash test: \(kills) double kills (seed \(seed)): \(acknowledged) acknowledged writes checked, "
                + "\(inFlightSurvived) in-flight batches survived")
    }

    private func check(
        _ storePath: String, logs: [WriterLog], model: inout WriterModel, acknowledged: inout Int,
        inFlightSurvived: inout Int, context: Comment
    ) throws -> Bool {
        for log in logs { #expect(log.malformed.isEmpty, "unreadable writer output \(log.malformed); \(context)") }
        let store: Store
        do { store = try Store.open(at: storePath) } catch {
            Issue.record("the store does not open after the kills: \(error); \(context)")
            return false
        }
        defer { store.close() }
        let entries = try store.journalEntries()
        let problems = JournalAudit.problems(in: entries)
        #expect(problems.isEmpty, "journal: \(problems.prefix(5)); \(context)")

        var acks: [UInt64: WriterLog.Write] = [:]
        var inFlight: [[WriterLog.Write]] = []
        for log in logs {
            for batch in log.batches {
                for (sequence, write) in batch.acks {
                    if let other = acks[sequence], other != write {
                        Issue.record("two writers acknowledged seq \(sequence): \(other) and \(write); \(context)")
                        return false
                    }
                    acks[sequence] = write
                }
                if !batch.isAcknowledged { inFlight.append(batch.wants) }
            }
        }
        acknowledged += acks.count
        if let lost = acks.keys.filter({ $0 > UInt64(entries.count) }).min() {
            Issue.record("acknowledged seq \(lost) is past the journal's end \(entries.count); \(context)")
            return false
        }
        // Each new entry is an acknowledged write, or part of a batch a writer had in flight.
        var position = Int(model.head)
        while position < entries.count {
            let entry = entries[position]
            let actual = WriterLog.Write(
                isDelete: entry.change.isDelete, key: entry.change.key,
                hash: entry.change.operation.document.map { SHA256.hash($0.canonicalBytes()).hex })
            if let expected = acks[entry.sequence] {
                guard expected == actual else {
                    Issue.record("seq \(entry.sequence) holds \(actual), acknowledged as \(expected); \(context)")
                    return false
                }
                model.append(actual)
                position += 1
                continue
            }
            guard let batchIndex = inFlight.firstIndex(where: { $0.first == actual }) else {
                Issue.record("seq \(entry.sequence) holds \(actual), which no writer acknowledged or had in flight; \(context)")
                return false
            }
            let batch = inFlight.remove(at: batchIndex)
            var matched = 0
            while matched < batch.count, position + matched < entries.count, acks[entries[position + matched].sequence] == nil {
                let next = entries[position + matched]
                let write = WriterLog.Write(
                    isDelete: next.change.isDelete, key: next.change.key,
                    hash: next.change.operation.document.map { SHA256.hash($0.canonicalBytes()).hex })
                guard write == batch[matched] else { break }
                matched += 1
            }
            if matched < batch.count {
                do {
                    Issue.record("a batch of \(batch.count) writes survived in part (\(matched)); \(context)")
                }
            } else {
                inFlightSurvived += 1
            }
            for write in batch.prefix(matched) { model.append(write) }
            position += matched
        }
        // Records read back as the journal's last write to each; files match (no hand edits).
        for entity in model.entities {
            let expected = model.live(in: entity)
            #expect(Set(try store.ids(of: entity)) == Set(expected.keys), "live ids of \(entity) differ; \(context)")
            for (id, hash) in expected {
                let actual = try store.get(entity: entity, id: id).map { SHA256.hash($0.canonicalBytes()).hex }
                #expect(actual == hash, "\(entity)/\(id) reads \(actual ?? "nothing"), expected \(hash); \(context)")
            }
        }
        let status = try store.status()
        #expect(status.isClean, "status: \(status.edits.map { "\($0.kind) \($0.path)" }) \(status.problems); \(context)")
        return problems.isEmpty && status.isClean
    }
}
