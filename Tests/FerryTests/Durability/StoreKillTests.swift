import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGKILLs `ferry-torture writer` at random moments, resuming the same store across kills,
/// and checks after each kill that the store opens, that every acknowledged write is there
/// with exactly its content, that the batch in flight survived whole or not at all, that the
/// hash chain holds and that the record files match the journal.
///
/// `FERRY_CRASH_KILLS` (default 30), `FERRY_CRASH_SEED` and `FERRY_CRASH_FRESH_EVERY` (a new
/// store after this many kills, default 10) let `scripts/crash-test.sh` run thousands.
@Suite(.serialized) struct StoreKillTests {
    /// Counts of what the kills hit, printed at the end.
    struct Tally {
        var kills = 0
        var beforeReady = 0
        var tornTails = 0
        var inFlightSurvived = 0
        var inFlightLost = 0
        var partialBatches = 0
        var acknowledged = 0
        /// Kills between naming a batch's new files and syncing its entries, settled on open.
        var earlyFilesRemoved = 0
    }

    @Test func killedWriterLosesNothingAcknowledged() async throws {
        let kills = Int(SeededRandom.environmentNumber("FERRY_CRASH_KILLS", default: 30))
        let seed = SeededRandom.environmentNumber("FERRY_CRASH_SEED", default: 20_251_121)
        let freshEvery = max(1, Int(SeededRandom.environmentNumber("FERRY_CRASH_FRESH_EVERY", default: 10)))
        var random = SeededRandom(seed: seed)
        let binary = try tortureBinaryPath()
        let directory = try TemporaryDirectory(prefix: "ferry-crash")
        var tally = Tally()
        var model = WriterModel()
        var storePath = ""
        for kill in 0..<kills {
            if kill % freshEvery == 0 {
                if !storePath.isEmpty { try FileSystem.removeTree(storePath) }
                storePath = directory.subpath("store-\(kill)")
                try Store.create(at: storePath, name: "crash").close()
                model = WriterModel()
            }
            let runSeed = seed &+ UInt64(kill) &* 7_919
            let context = Comment(rawValue: "seed \(seed), kill \(kill), writer seed \(runSeed), store \(storePath)")
            // Batches past 64 make their new files on a worker thread (UnnamedFileQueue).
            let batchMaximum = [1, 5, 20, 60, 200].randomElement(using: &random) ?? 20
            let scratch = directory.subpath("run")
            try FileSystem.createDirectory(scratch)
            let child = try ChildProcess(
                binary, ["writer", storePath, "\(runSeed)", "--batch-max", "\(batchMaximum)"], outputDirectory: scratch)
            if random.chance(20) {
                // From the start: may land while the store opens or recovers.
                _ = await child.kill(microseconds: UInt32.random(in: 1_000...60_000, using: &random))
            } else {
                let delay = UInt32.random(in: 1_000...150_000, using: &random)
                let ready = await child.kill(microseconds: delay, afterLineStartingWith: "ready")
                #expect(ready, "the writer never became ready: \(child.errorOutput); \(context)")
            }
            let code = child.wait()
            #expect(code == 128 + SIGKILL, "the writer stopped on its own (\(code)): \(child.errorOutput); \(context)")
            let log = WriterLog(lines: child.outputLines)
            tally.kills += 1
            if log.readyHead == nil { tally.beforeReady += 1 }
            guard try check(storePath, log: log, model: &model, tally: &tally, context: context) else { break }
        }
        print(
            "crash test: \(tally.kills) kills (seed \(seed)): \(tally.acknowledged) acknowledged writes checked, "
                + "\(tally.beforeReady) kills before the store was open, \(tally.tornTails) torn tails cut, "
                + "\(tally.inFlightSurvived) in-flight batches survived whole, \(tally.inFlightLost) lost whole, "
                + "\(tally.partialBatches) survived in part, \(tally.earlyFilesRemoved) lost batches' early-named files removed")
    }

    /// Checks the store after one kill against the model, then adds what survived to it.
    /// Returns false after a failure, to stop the loop before failures cascade.
    private func check(
        _ storePath: String, log: WriterLog, model: inout WriterModel, tally: inout Tally, context: Comment
    ) throws -> Bool {
        #expect(log.malformed.isEmpty, "unreadable writer output \(log.malformed); \(context)")
        if let readyHead = log.readyHead {
            #expect(readyHead == model.head, "the writer opened at head \(readyHead), expected \(model.head); \(context)")
        }
        let warnings = WarningRecorder()
        var options = StoreOptions()
        options.warningHandler = warnings.handler
        let store: Store
        do { store = try Store.open(at: storePath, options: options) } catch {
            Issue.record("the store does not open after the kill: \(error); \(context)")
            return false
        }
        defer { store.close() }
        if warnings.messages.contains(where: { $0.contains("torn last line") }) { tally.tornTails += 1 }
        if warnings.messages.contains(where: { $0.contains("was not written") }) { tally.earlyFilesRemoved += 1 }
        let entries = try store.journalEntries()
        let problems = JournalAudit.problems(in: entries)
        #expect(problems.isEmpty, "journal: \(problems.prefix(5)); \(context)")

        // Acknowledged batches: each ack names the next journal sequence.
        var inFlight: WriterLog.Batch?
        for (index, batch) in log.batches.enumerated() {
            guard batch.isAcknowledged else {
                #expect(index == log.batches.count - 1, "a batch left unacknowledged before the last; \(context)")
                inFlight = batch
                break
            }
            for (sequence, write) in batch.acks {
                guard sequence == model.head + 1 else {
                    Issue.record("ack of seq \(sequence) where \(model.head + 1) was expected: \(write); \(context)")
                    return false
                }
                model.append(write)
                tally.acknowledged += 1
            }
        }
        // The batch in flight at the kill: all of it or none of it (its writes are one append).
        let extra = entries.count - Int(model.head)
        guard extra >= 0 else {
            Issue.record("the journal ends at \(entries.count), before the last acknowledged write \(model.head); \(context)")
            return false
        }
        if let inFlight {
            switch extra {
            case 0:
                #expect(inFlight.acks.isEmpty, "acknowledged writes \(inFlight.acks.map(\.write)) are missing; \(context)")
                tally.inFlightLost += 1
            case inFlight.wants.count:
                tally.inFlightSurvived += 1
            case 1..<inFlight.wants.count:
                tally.partialBatches += 1
                Issue.record(
                        "a batch of \(inFlight.wants.count) writes survived the kill in part (\(extra) entries): Store.write promises all or nothing; \(context)")
            default:
                Issue.record("\(extra) unexpected entries after the last acknowledged write; \(context)")
                return false
            }
            for write in inFlight.wants.prefix(extra) { model.append(write) }
        } else {
            #expect(extra == 0, "\(extra) journal entries that no batch announced; \(context)")
            if extra != 0 { return false }
        }

        // Every journal entry is exactly the write announced for it.
        for (entry, expected) in zip(entries, model.entries) {
            let change = entry.change
            let actual = WriterLog.Write(
                isDelete: change.isDelete, key: change.key, hash: change.operation.document.map { SHA256.hash($0.canonicalBytes()).hex })
            if actual != expected {
                Issue.record("seq \(entry.sequence) holds \(actual), expected \(expected); \(context)")
                return false
            }
        }
        // Every record reads back as the last write to it; no other record exists.
        for entity in model.entities {
            let expected = model.live(in: entity)
            let ids = Set(try store.ids(of: entity))
            #expect(ids == Set(expected.keys), "live ids of \(entity) differ; \(context)")
            for (id, hash) in expected {
                let document = try store.get(entity: entity, id: id)
                let actual = document.map { SHA256.hash($0.canonicalBytes()).hex }
                #expect(actual == hash, "\(entity)/\(id) reads \(actual ?? "nothing"), expected \(hash); \(context)")
            }
        }
        // The record files match the journal: no hand edits were made, so none may show.
        let status = try store.status()
        #expect(
            status.isClean,
            "status after recovery: \(status.edits.map { "\($0.kind) \($0.path)" }) \(status.problems); \(context)")
        return problems.isEmpty && status.isClean
    }
}
