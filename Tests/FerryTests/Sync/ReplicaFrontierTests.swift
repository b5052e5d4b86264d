import Testing
import FerryTestSupport
@testable import Ferry

/// The rules a store applies to each incoming change: contiguous counters, chained digests, and
/// never a change of its own replica that it did not make.
@Suite struct ReplicaFrontierTests {
    let notes = try! EntityName("Note")
    let alice = ReplicaID.generate()
    let bob = ReplicaID.generate()

    /// A chain of `count` changes of `origin`, each chained onto the one before.
    func chain(_ origin: ReplicaID, count: Int, text: String = "v") -> [Change] {
        var parent = SHA256Digest.zero
        return (1...count).map { counter in
            var change = Change(
                origin: origin, counter: UInt64(counter), timestamp: HybridTimestamp(physical: UInt64(1_000 + counter), logical: 0),
                key: RecordKey(entity: notes, id: try! RecordID("r\(counter)")), operation: .put(["t": .string("\(text)\(counter)")]),
                version: VersionVector([origin: UInt64(counter)]))
            change.chain = ChangeChain(change, parent: parent)
            parent = change.digest
            return change
        }
    }

    @Test func admitsTheNextChangeAndKnowsItAfterwards() {
        var frontier = ReplicaFrontier(knowledge: VersionVector(), digests: [:])
        let changes = chain(alice, count: 3)
        for change in changes { #expect(frontier.admit(change, ownReplica: bob) == .next) }
        #expect(frontier.admit(changes[2], ownReplica: bob) == .alreadyKnown)
        #expect(frontier.admit(changes[0], ownReplica: bob) == .alreadyKnown)
        #expect(frontier.knowledge[alice] == 3)
    }

    @Test func refusesACounterThatSkipsAhead() {
        var frontier = ReplicaFrontier(knowledge: VersionVector(), digests: [:])
        var planted = chain(alice, count: 1)[0]
        planted.counter = 1000
        planted.version = VersionVector([alice: 1000])
        #expect(frontier.admit(planted, ownReplica: bob) == .gap(expected: 1))
        #expect(frontier.knowledge[alice] == 0, "a refused change teaches the frontier nothing")
    }

    @Test func tellsACopyByItsDigests() {
        let original = chain(alice, count: 3, text: "original")
        let copy = Array(original.prefix(1)) + chain(alice, count: 3, text: "copy").dropFirst().map { change -> Change in
            var change = change
            change.chain = nil
            return change
        }
        // The copy's change 2 chained on the shared change 1.
        var copied = copy[1]
        copied.chain = ChangeChain(copied, parent: original[0].digest)
        var frontier = ReplicaFrontier(knowledge: VersionVector(), digests: [:])
        _ = frontier.admit(original[0], ownReplica: bob)
        _ = frontier.admit(original[1], ownReplica: bob)
        // Same counter, other content: never "already known".
        #expect(frontier.admit(copied, ownReplica: bob) == .diverged)
        // The copy's change 3 names a parent this store never had.
        var third = copy[2]
        third.chain = ChangeChain(third, parent: copied.digest)
        #expect(frontier.admit(third, ownReplica: bob) == .diverged)
        // Two frontiers that both stop at the diverged change say so without exchanging it.
        var other = ReplicaFrontier(knowledge: VersionVector(), digests: [:])
        _ = other.admit(original[0], ownReplica: bob)
        _ = other.admit(copied, ownReplica: bob)
        #expect(frontier.firstDivergence(from: other)?.counter == 2)
    }

    @Test func neverAcceptsAChangeOfItsOwnReplicaThatItDidNotMake() {
        var frontier = ReplicaFrontier(knowledge: VersionVector([bob: 2]), digests: [:])
        let forged = chain(bob, count: 3)[2]
        #expect(frontier.admit(forged, ownReplica: bob) == .diverged)
        // Nor one that claims to descend from such a change.
        var descendant = chain(alice, count: 1)[0]
        descendant.version = VersionVector([alice: 1, bob: 7])
        descendant.chain = ChangeChain(descendant, parent: .zero)
        #expect(frontier.admit(descendant, ownReplica: bob) == .diverged)
    }

    @Test func aChangeAlteredAfterItWasMadeNoLongerMatchesItsDigest() {
        var change = chain(alice, count: 1)[0]
        #expect(change.chain?.matches(change) == true)
        change.operation = .put(["t": "forged"])
        #expect(change.chain?.matches(change) == false)
    }

    @Test func storeRefusesAPlantedChangeAndTheRealOneStillArrives() async throws {
        let directory = try TemporaryDirectory()
        let server = try Store.create(at: directory.subpath("server"), name: "server")
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        try laptop.put(["t": 1], entity: notes, id: RecordID("a"))
        _ = try await laptop.sync(with: FolderTransport(path: server.path))
        // Someone pushes a change claiming to be change 1000 of the laptop.
        var planted = Change(
            origin: laptop.replicaID, counter: 1000, timestamp: HybridTimestamp(physical: 1_000, logical: 0),
            key: RecordKey(entity: notes, id: try RecordID("planted")), operation: .put(["t": "x"]),
            version: VersionVector([laptop.replicaID: 1000]))
        planted.chain = ChangeChain(planted, parent: .zero)
        #expect(throws: SyncError.self) { try server.receive([planted], from: "alice", maximumSkew: 86_400_000) }
        #expect(server.knowledge[laptop.replicaID] == 1)
        try laptop.put(["t": 2], entity: notes, id: RecordID("b"))
        let report = try await laptop.sync(with: FolderTransport(path: server.path))
        #expect(report.pushed == 1)
        #expect(try server.get(entity: notes, id: RecordID("b")) == ["t": 2])
    }
}
