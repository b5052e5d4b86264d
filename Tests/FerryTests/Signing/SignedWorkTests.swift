import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// Issue 48 item 3: every replica signs its work, every receiver checks it before applying, and
/// work published under another replica's identity is refused and named for what it is.
@Suite struct SignedWorkTests {
    let notes = try! EntityName("Note")

    func forgedNextChange(of victim: Store, id: String, signedBy key: ReplicaSigningKey?) throws -> Change {
        try UnsignedHistory.forgedNextChange(of: victim, id: id, signedBy: key)
    }
    func smuggle(_ changes: [Change], into path: String) throws { try UnsignedHistory.smuggle(changes, into: path) }
    func legacyStore(at path: String, ids: [String]) throws -> Store { try UnsignedHistory.legacyStore(at: path, ids: ids) }

    @Test func aNewStoreHasAPrivateKeyAndAnIdMadeFromIt() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("a"))
        let key = try store.publicKey()
        #expect(store.replicaID.isKeyDerived)
        #expect(store.replicaID == ReplicaID(derivedFrom: key))
        #expect(try FileSystem.permissions(of: store.layout.signingKey) == 0o600)
        // A key file others may read is refused, with the remedy.
        store.close()
        chmod(directory.subpath("a/.ferry/signing-key"), 0o644)
        let reopened = try Store.open(at: directory.subpath("a"))
        #expect(throws: StoreError.self) { try reopened.put(["t": 1], entity: notes, id: RecordID("n")) }
    }

    /// A seal's key is decoded only when its signature is checked: one off the curve reads,
    /// and never checks.
    @Test func aSealWhoseKeyIsNoPointNeverChecks() throws {
        let offCurve = try #require((2..<200).lazy.map { [UInt8($0)] + [UInt8](repeating: 0, count: 31) }.first { ReplicaPublicKey(rawRepresentation: $0) == nil })
        let key = ReplicaSigningKey.generate()
        let digest = SHA256.hash(Array("a change".utf8))
        let honest = ChangeSeal(signing: digest, with: key)
        let text = HexText.string(offCurve) + String(honest.text.dropFirst(64))
        let forged = try #require(ChangeSeal(text: text))
        #expect(!forged.isValid(for: digest))
        #expect(honest.isValid(for: digest) && ChangeSeal(text: honest.text) == honest)
    }

    @Test func theLastChangeOfEachBatchIsSignedAndTheSignatureChecks() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("a"))
        try store.put(["t": 1], entity: notes, id: RecordID("one"))
        try store.write((0..<3000).map { .put(RecordKey(entity: notes, id: try RecordID("r\($0)")), ["n": .integer(Int64($0))]) })
        let changes = try store.changes(after: 0, excluding: VersionVector(), limit: 10_000).changes
        let sealed = changes.filter { $0.chain?.seal != nil }.map(\.counter)
        // The single put, every 1024th change of the long batch, and its last.
        #expect(sealed == [1, 1024, 2048, 3001])
        let key = try store.publicKey()
        for change in changes { if let seal = change.chain?.seal { #expect(seal.signer == key && seal.isValid(for: change.digest)) } }
        // The signature survives the journal: a reopened store reads it back, by both decoders.
        store.close()
        let reopened = try Store.open(at: directory.subpath("a"))
        #expect(try reopened.changes(after: 0, excluding: VersionVector(), limit: 10_000).changes == changes)
        reopened.close()
        #expect(try StoreVerifier(path: directory.subpath("a")).verify().isClean)
    }

    /// Whatever the sizes, a run between two signatures holds at most 256 KiB of documents or
    /// one larger document alone: a push cut to a body limit can always end signed.
    @Test func aLargeDocumentStartsARunOfItsOwn() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("a"))
        var writes: [RecordWrite] = (0..<40).map { .put(RecordKey(entity: notes, id: try! RecordID("s\($0)")), ["body": .string(String(repeating: "s", count: 15_000))]) }
        writes.append(.put(RecordKey(entity: notes, id: try RecordID("huge")), ["body": .string(String(repeating: "h", count: 1 << 20))]))
        writes.append(.put(RecordKey(entity: notes, id: try RecordID("after")), ["body": "small"]))
        try store.write(writes)
        let changes = try store.changes(after: 0, excluding: VersionVector(), limit: 100).changes
        let huge = try #require(changes.firstIndex { $0.key.id.rawValue == "huge" })
        #expect(changes[huge - 1].chain?.seal != nil && changes[huge].chain?.seal != nil)
        // And so a push under a 512 KiB body limit ends every request signed.
        let groups = PushRequest.groups(of: changes, maximumBytes: 512 << 10)
        let endsSigned = SealedRuns.endsSigned(changes)
        #expect(groups.count > 2 && groups.allSatisfy { endsSigned[$0.start + $0.count - 1] })
    }

    @Test func signedWorkTravelsThroughARelay() async throws {
        let directory = try TemporaryDirectory()
        let a = try Store.create(at: directory.subpath("a"))
        let relay = try Store.create(at: directory.subpath("relay"))
        let c = try Store.create(at: directory.subpath("c"))
        for index in 0..<50 { try a.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("\(index)")) }
        _ = try await relay.sync(with: FolderTransport(path: a.path))
        // Small pages cut the runs anywhere: each page applied must still end signed.
        var options = SyncOptions()
        options.pageSize = 7
        _ = try await c.sync(with: FolderTransport(path: relay.path), options: options)
        #expect(try c.records(of: notes).count == 50)
        try a.put(["n": 99], entity: notes, id: RecordID("0"))
        _ = try await relay.sync(with: FolderTransport(path: a.path), options: options)
        _ = try await c.sync(with: FolderTransport(path: relay.path), options: options)
        #expect(try c.get(entity: notes, id: RecordID("0")) == ["n": 99])
    }

    /// The scenario through a shared store: a co-writer publishes the victim's next
    /// change, with a valid digest and the right parent.
    @Test(arguments: [false, true]) func workPublishedUnderAnotherReplicasIdentityIsRefused(signedByTheForger: Bool) async throws {
        let directory = try TemporaryDirectory()
        let victim = try Store.create(at: directory.subpath("victim"), name: "victim")
        let shared = try Store.create(at: directory.subpath("shared"), name: "shared")
        let third = try Store.create(at: directory.subpath("third"), name: "third")
        // Stores with records of their own pull history: a join of a peer's current state
        // cannot prove unsigned versions yet (see the closing note of issue 48).
        try third.put(["t": 0], entity: notes, id: RecordID("own"))
        try shared.put(["t": 0], entity: notes, id: RecordID("shared"))
        var history = SyncOptions()
        history.history = .full
        try victim.put(["t": 1], entity: notes, id: RecordID("n"))
        _ = try await shared.sync(with: FolderTransport(path: victim.path), options: history)
        let forged = try forgedNextChange(of: victim, id: "n", signedBy: signedByTheForger ? .generate() : nil)

        // ferry serve's store (or any store) refuses it pushed directly.
        #expect {
            _ = try shared.receive([forged], from: "a co-writer", maximumSkew: 86_400_000)
        } throws: { error in
            guard case .unsignedWork(_, let origin, let counter, _)? = error as? SyncError else { return false }
            return origin == victim.replicaID && counter == 2
        }

        // Smuggled into the shared folder by someone who can write to it.
        shared.close()
        try smuggle([forged], into: directory.subpath("shared"))
        // ferry verify names it, as tampering, at its journal line.
        let verified = try StoreVerifier(path: directory.subpath("shared")).verify()
        #expect(verified.hasTampering)
        #expect(verified.findings.contains { $0.kind == .unsignedWork && $0.line != nil && $0.message.contains(victim.replicaID.rawValue) })
        // A third replica refuses it, naming the replica, and applies nothing.
        await #expect {
            _ = try await third.sync(with: FolderTransport(path: directory.subpath("shared")), options: history)
        } throws: { error in
            guard case .unsignedWork(_, let origin, _, _)? = error as? SyncError else { return false }
            return origin == victim.replicaID
        }
        #expect(try third.records(of: notes).map(\.0.rawValue) == ["own"])
        // The victim is told someone else published under its identity, never to reidentify.
        await #expect {
            _ = try await victim.sync(with: FolderTransport(path: directory.subpath("shared")))
        } throws: { error in
            guard case .impersonated(let store, _, let counter, _)? = error as? SyncError, counter == 2, store == victim.path else { return false }
            let text = "\(error)"
            return text.contains("someone else published a change under this store's identity") && text.contains("do not reidentify")
        }
        #expect(try victim.get(entity: notes, id: RecordID("n")) == ["t": 1])
    }

    /// A copied store folder carries its key: its changes are signed by the original's key, so
    /// the original is still told about a copy (and to reidentify it).
    @Test func aCopiedStoreIsStillACopy() async throws {
        let directory = try TemporaryDirectory()
        let original = try Store.create(at: directory.subpath("c1"))
        try original.put(["t": 0], entity: notes, id: RecordID("shared"))
        original.close()
        try FileManager.default.copyItem(atPath: directory.subpath("c1"), toPath: directory.subpath("c2"))
        let c1 = try Store.open(at: directory.subpath("c1"))
        let c2 = try Store.open(at: directory.subpath("c2"))
        try c1.put(["t": 1], entity: notes, id: RecordID("one"))
        try c2.put(["t": 2], entity: notes, id: RecordID("two"))
        await #expect {
            _ = try await c1.sync(with: FolderTransport(path: c2.path))
        } throws: { error in
            switch error as? SyncError {
            case .copiedStore?: return true
            case .divergedReplica(_, let counter, _, _, let copy)?: return counter == 2 && copy != nil
            default: return false
            }
        }
        c2.close()
        let report = try Store.reidentify(at: directory.subpath("c2"))
        #expect(report.newReplica.isKeyDerived && report.newReplica != report.formerReplica)
        let renewed = try Store.open(at: directory.subpath("c2"))
        #expect(try renewed.publicKey() != c1.publicKey())
        _ = try await c1.sync(with: FolderTransport(path: renewed.path))
        #expect(try c1.records(of: notes).count == 3)
    }

    /// A store made before changes were signed (a random id, no key file) keeps working: it
    /// signs from its next change on, receivers learn its key then, and hold it.
    @Test func aStoreFromBeforeSignaturesSignsFromItsNextChange() async throws {
        let directory = try TemporaryDirectory()
        let legacy = try legacyStore(at: directory.subpath("legacy"), ids: ["x", "y"])
        #expect(!legacy.replicaID.isKeyDerived)
        let receiver = try Store.create(at: directory.subpath("receiver"))
        _ = try await receiver.sync(with: FolderTransport(path: legacy.path))
        #expect(try receiver.records(of: notes).count == 2)
        #expect(try receiver.keyBook()[legacy.replicaID] == nil)
        // verify says whose work it cannot prove.
        let unproven = try StoreVerifier(path: receiver.path).verify()
        #expect(unproven.isClean && unproven.unsignedChanges == [legacy.replicaID: 2])
        try legacy.put(["t": 1], entity: notes, id: RecordID("z"))
        let key = try legacy.publicKey()
        _ = try await receiver.sync(with: FolderTransport(path: legacy.path))
        #expect(try receiver.keyBook()[legacy.replicaID] == key)
        #expect(try StoreVerifier(path: receiver.path).verify().unsignedChanges.isEmpty)
        // From then on, work under that id signed by another key is refused.
        let forged = try forgedNextChange(of: legacy, id: "x", signedBy: .generate())
        #expect(throws: SyncError.self) { _ = try receiver.receive([forged], from: "a co-writer", maximumSkew: 86_400_000) }
        let unsigned = try forgedNextChange(of: legacy, id: "x", signedBy: nil)
        #expect(throws: SyncError.self) { _ = try receiver.receive([unsigned], from: "a co-writer", maximumSkew: 86_400_000) }
    }

    /// An all-zero parent past counter 1 skips the chain check: never accepted from a replica
    /// whose id is made from its key.
    @Test func anAllZeroParentIsAcceptedOnlyForAFirstChange() throws {
        let directory = try TemporaryDirectory()
        let a = try Store.create(at: directory.subpath("a"))
        try a.put(["t": 1], entity: notes, id: RecordID("n"))
        var change = try forgedNextChange(of: a, id: "n", signedBy: nil)
        change.chain = ChangeChain(change, parent: .zero)
        var frontier = try a.currentFrontier()
        var other = frontier
        #expect(frontier.admit(change, ownReplica: .generate()) == .diverged)
        // From a replica whose journal started before digests, it still passes.
        let legacyOrigin = ReplicaID.generate()
        var legacy = Change(
            origin: legacyOrigin, counter: 2, timestamp: HybridTimestamp(physical: 1), key: change.key, operation: .delete,
            version: VersionVector([legacyOrigin: 2]))
        legacy.chain = ChangeChain(legacy, parent: .zero)
        other = ReplicaFrontier(knowledge: VersionVector([legacyOrigin: 1]), digests: [:])
        #expect(other.admit(legacy, ownReplica: .generate()) == .next)
    }
}
