import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// Seeded, reproducible convergence runs: 3 to 5 folder replicas (some with skewed clocks,
/// some with clocks stepped forwards and back by hand)
/// make random creates, updates and deletes on a shared key space, and sync pairwise in
/// random topologies under one random policy per run. Then all-pairs rounds run until one
/// transfers nothing, and every replica must hold identical records and conflicts, and every
/// write ever made must be live, a listed loser, or superseded by a descendant.
///
/// `FERRY_CONVERGENCE_SEEDS` (default 20), `FERRY_CONVERGENCE_ROUNDS` (default 10) and
/// `FERRY_CONVERGENCE_SEED` (the first seed, default 1) let `scripts/convergence.sh` run
/// thousands of rounds.
@Suite struct ConvergenceTests {
    static let entities = [try! EntityName("Note"), try! EntityName("User")]
    static let ids = (0..<8).map { try! RecordID("k\($0)") }

    /// What one run did, for the summary line.
    struct Tally {
        var rounds = 0
        var syncs = 0
        var writes = 0
        var finalRounds = 0
        var conflicts = 0
    }

    /// The seeds run: `FERRY_CONVERGENCE_SEEDS` of them from `FERRY_CONVERGENCE_SEED`.
    static let seeds: [UInt64] = {
        let count = SeededRandom.environmentNumber("FERRY_CONVERGENCE_SEEDS", default: 20)
        let first = SeededRandom.environmentNumber("FERRY_CONVERGENCE_SEED", default: 1)
        return Array(first..<(first + count))
    }()

    /// Sync rounds per seed.
    static let rounds = Int(SeededRandom.environmentNumber("FERRY_CONVERGENCE_ROUNDS", default: 10))

    @Test(.serialized, arguments: seeds)
    func randomReplicasConverge(seed: UInt64) async throws {
        let tally = try await run(seed: seed, rounds: ConvergenceTests.rounds)
        print(
            "convergence seed \(seed): \(tally.rounds) rounds, \(tally.writes) writes, \(tally.syncs) syncs "
                + "(\(tally.finalRounds) final all-pairs rounds), \(tally.conflicts) conflicts left")
    }

    /// One seeded run. Records issues naming the seed; returns what it did.
    func run(seed: UInt64, rounds: Int) async throws -> Tally {
        var random = SeededRandom(seed: seed)
        var tally = Tally()
        let directory = try TemporaryDirectory(prefix: "ferry-convergence")
        let policy = ConflictPolicy.allCases.randomElement(using: &random) ?? .keepBoth
        let count = Int.random(in: 3...5, using: &random)
        let context = Comment(rawValue: "seed \(seed), policy \(policy.rawValue), \(count) replicas")
        var stores: [Store] = []
        var options: [StoreOptions] = []
        // Clocks stepped by hand each round, forwards and back.
        var steppedClocks: [ManualClock] = []
        for index in 0..<count {
            var storeOptions = StoreOptions()
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                storeOptions.clock = OffsetClock(offsetMilliseconds: Int64.random(in: -1_800_000...1_800_000, using: &random))
            case 4..<6:
                let clock = ManualClock(milliseconds: SystemClock().milliseconds())
                steppedClocks.append(clock)
                storeOptions.clock = clock
            default:
                break
            }
            options.append(storeOptions)
            stores.append(try Store.create(at: directory.subpath("r\(index)"), name: "r\(index)", options: storeOptions))
        }
        var ledger = WriteLedger()

        func sync(_ local: Int, _ peer: Int) async throws -> Int {
            var syncOptions = SyncOptions(policy: policy)
            syncOptions.force = true
            syncOptions.pageSize = Int.random(in: 1...20, using: &random)
            let report = try await SyncEngine(
                store: stores[local], transport: FolderTransport(path: stores[peer].path, options: options[peer]),
                options: syncOptions
            ).run()
            tally.syncs += 1
            await Task.yield()  // syncs block on file I/O: let other tests' tasks run in between
            return report.pulled + report.pushed
        }

        for _ in 0..<rounds {
            tally.rounds += 1
            for clock in steppedClocks { clock.advance(by: Int64.random(in: -60_000...120_000, using: &random)) }
            for store in stores {
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    let writes = try randomWrites(store, random: &random)
                    if writes.isEmpty { continue }
                    let result = try store.write(writes)
                    ledger.record(result.entries)
                    tally.writes += result.entries.count
                }
            }
            for _ in 0..<Int.random(in: 1...count, using: &random) {
                let local = Int.random(in: 0..<count, using: &random)
                var peer = Int.random(in: 0..<(count - 1), using: &random)
                if peer >= local { peer += 1 }
                do { _ = try await sync(local, peer) } catch {
                    Issue.record("sync r\(local) with r\(peer) failed: \(error); \(context)")
                    return tally
                }
            }
        }

        // All pairs until a round moves nothing.
        var quiet = false
        for _ in 0..<6 where !quiet {
            tally.finalRounds += 1
            var moved = 0
            for local in 0..<count {
                for peer in (local + 1)..<count {
                    do { moved += try await sync(local, peer) } catch {
                        Issue.record("final sync r\(local) with r\(peer) failed: \(error); \(context)")
                        return tally
                    }
                }
            }
            quiet = moved == 0
        }
        #expect(quiet, "all-pairs sync rounds still moved changes after 6 rounds; \(context)")

        let reference = try ReplicaState(stores[0])
        tally.conflicts = reference.conflicts.count
        let knowledge = try stores[0].currentKnowledge()
        for (index, store) in stores.enumerated() {
            let state = try ReplicaState(store)
            let differences = state.differences(from: reference)
            #expect(differences.isEmpty, "r\(index) differs from r0: \(differences.prefix(5)); \(context)")
            #expect(try store.currentKnowledge() == knowledge, "r\(index) has seen other changes than r0; \(context)")
            let journal = try JournalAudit.problems(in: store)
            #expect(journal.isEmpty, "r\(index) journal: \(journal.prefix(5)); \(context)")
            let unaccounted = try ledger.unaccounted(in: store)
            #expect(unaccounted.isEmpty, "r\(index): \(unaccounted.prefix(5)); \(context)")
            let status = try store.status()
            let edits = try status.edits.map { edit in
                let state = try store.state(of: edit.key)
                let hash = edit.document.map { SHA256.hash($0.canonicalBytes()) }
                return "\(edit.kind) \(edit.path) (conflicted: \(state?.isConflicted ?? false), "
                    + "winner's content: \(hash == state?.winner.contentHash), versions: \(state?.versions.count ?? 0))"
            }
            #expect(status.isClean, "r\(index) status: \(edits); \(context)")
            if policy == .lastWriterWins {
                #expect(state.conflicts.isEmpty, "r\(index) keeps conflicts under lww: \(state.conflicts.keys.sorted()); \(context)")
            }
        }
        for store in stores { store.close() }
        return tally
    }

    /// A random batch of one to three writes on the shared key space: puts that change one
    /// field of the current document (so merges can combine them), puts of a fixed document
    /// (so replicas sometimes write identical content), and deletes of live records.
    func randomWrites(_ store: Store, random: inout SeededRandom) throws -> [RecordWrite] {
        var writes: [RecordWrite] = []
        var touched = Set<RecordKey>()
        for _ in 0..<(random.chance(70) ? 1 : Int.random(in: 2...3, using: &random)) {
            let key = RecordKey(
                entity: ConvergenceTests.entities.randomElement(using: &random) ?? ConvergenceTests.entities[0],
                id: ConvergenceTests.ids.randomElement(using: &random) ?? ConvergenceTests.ids[0])
            guard touched.insert(key).inserted else { continue }
            // A record in conflict takes no put or delete until it is resolved (issue 55): a
            // person, or the policy of a later sync, ends it.
            if try store.state(of: key)?.isConflicted == true { continue }
            let current = try store.get(entity: key.entity, id: key.id)
            if current != nil && random.chance(20) {
                writes.append(.delete(key))
            } else if random.chance(15) {
                writes.append(.put(key, ["same": "content", "n": .integer(Int64.random(in: 0...1, using: &random))]))
            } else {
                var members = current?.objectValue ?? [:]
                let field = ["a", "b", "c", "d"].randomElement(using: &random) ?? "a"
                members[field] = .integer(Int64.random(in: 0...1_000_000, using: &random))
                if random.chance(10) { members["text"] = .string("Ünïcödé 日本 😀 \(Int.random(in: 0...9, using: &random))") }
                writes.append(.put(key, .object(members)))
            }
        }
        return writes
    }
}
