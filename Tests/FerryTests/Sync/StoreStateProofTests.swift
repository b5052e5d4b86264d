import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// A new replica joins from a peer store's state only when it can tie that state to the peer's
/// signed statement of it (``StateStatement``): every version read and checked, each parent
/// link between consecutive versions of one origin, the state digest and the signature, before
/// anything is applied. A forged version is refused, from a folder and through `ferry serve`,
/// with the store left as it was; a peer without a key still joins, with a note saying so.
@Suite(.serialized) struct StoreStateProofTests {
    static let notes = try! EntityName("Note")

    func id(_ text: String) -> RecordID { try! RecordID(text) }

    /// Laptop's store at `path` with r1 (its change 1) and r2 (its change 2, or with
    /// `editedAgain`, its change 3, so no parent link joins r1's version to another), closed.
    func laptop(at path: String, editedAgain: Bool = false) throws -> Store {
        let laptop = try Store.create(at: path, name: "laptop")
        try laptop.put(["title": "real"], entity: Self.notes, id: id("r1"))
        try laptop.put(["title": "second"], entity: Self.notes, id: id("r2"))
        if editedAgain { try laptop.put(["title": "second, again"], entity: Self.notes, id: id("r2")) }
        laptop.close()
        return laptop
    }

    /// What someone with write access to a store's folder (but not its key) does: rewrites the
    /// change that made `record`'s version with `change` (given the old one), keeping it
    /// self-consistent: the change's digest, every journal line's hash and `prev` after it, and
    /// the record file; the index is dropped so the store rebuilds it from the journal.
    func forge(store path: String, record: String, _ rewrite: (inout Change) -> Void) throws {
        let files = JournalFiles(store: path)
        var lines: [[UInt8]] = []
        var previous = SHA256Digest.zero
        var forgedDocument: JSONValue?
        for line in try files.lines(files.first) {
            let entry = try line.withUnsafeBytes { try JournalEntry.decode(line: $0) }
            var change = entry.change
            if change.key.id == id(record) {
                rewrite(&change)
                if case .put(let document) = change.operation { forgedDocument = document }
            }
            let made = JournalEntry.make(
                sequence: entry.sequence, change: change, previousSequenceOfRecord: entry.previousSequenceOfRecord,
                previousHash: previous, batch: entry.batch)
            previous = made.entry.hash
            lines.append(Array(made.line.dropLast()))
        }
        try files.write(files.first, lines)
        let layout = StoreLayout(root: path)
        if let forgedDocument {
            let file = layout.recordFile(RecordKey(entity: Self.notes, id: id(record)))
            try Data(forgedDocument.prettyBytes()).write(to: URL(fileURLWithPath: file))
        }
        for file in [layout.index, layout.indexDelta] where FileManager.default.fileExists(atPath: file) {
            try FileManager.default.removeItem(atPath: file)
        }
    }

    /// r1's version, altered, with a fresh digest over its old parent (no seal).
    func alterR1(_ change: inout Change) {
        change.operation = .put(["title": "forged"])
        change.chain = ChangeChain(change, parent: change.chainOrLegacy.parent)
    }

    /// r2's version made to follow something else than r1's: a fresh digest over another parent.
    func unlinkR2(_ change: inout Change) {
        change.chain = ChangeChain(change, parent: SHA256.hash(Array("not r1".utf8)))
    }

    func expectNothingJoined(_ desk: Store) throws {
        #expect(desk.headSequence == 0 && desk.recordCount == 0, "nothing of the forged state was journaled")
        #expect(try desk.snapshotJoins()?.pending == nil, "no join was begun")
        #expect(try desk.snapshotJoins()?.joins.isEmpty ?? true)
    }

    @Test func anHonestJoinKeepsThePeersSignedStatement() async throws {
        let directory = try TemporaryDirectory()
        let laptop = try laptop(at: directory.subpath("laptop"))
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        let joined = try await desk.sync(with: FolderTransport(path: laptop.path))
        #expect(joined.snapshot?.reason == .join)
        #expect(!joined.notes.contains { $0.contains("its word") }, "\(joined.notes)")
        #expect(try desk.get(entity: Self.notes, id: id("r1"))?["title"] == "real")
        let join = try #require(try desk.snapshotJoins()?.joins.first)
        let statement = try #require(join.statement)
        let reopened = try Store.open(at: laptop.path)
        defer { reopened.close() }
        #expect(SignedObject.signature(of: statement, domain: StateStatement.signatureDomain) == .valid(try reopened.publicKey()))
        let stated = try StateStatement(json: statement)
        #expect(stated.replica == laptop.replicaID && stated.position == join.position && stated.entryHash == join.snapshot)
        #expect(stated.changeCount == 2)
    }

    @Test(arguments: ["forged version", "broken parent link"])
    func aForgedStateInAPeerFolderIsRefusedBeforeAnythingIsApplied(forgery: String) async throws {
        let directory = try TemporaryDirectory()
        let laptop = try laptop(at: directory.subpath("laptop"))
        if forgery == "forged version" {
            try forge(store: laptop.path, record: "r1", alterR1)
        } else {
            try forge(store: laptop.path, record: "r2", unlinkR2)
        }
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        // A dry run refuses it as the sync would.
        var dryRun = SyncOptions()
        dryRun.dryRun = true
        for options in [dryRun, SyncOptions()] {
            await #expect {
                _ = try await desk.sync(with: FolderTransport(path: laptop.path), options: options)
            } throws: { error in
                guard case SyncError.stateRefused(let peer, let reason) = error else { return false }
                return peer == laptop.path && reason.contains("version 2 of replica \(laptop.replicaID.short) does not follow version 1")
            }
        }
        try expectNothingJoined(desk)
    }

    @Test func aStatementSignedByAKeyThatIsNotThePeersIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let laptop = try laptop(at: directory.subpath("laptop"))
        // Another key in the peer's folder: its statements are no longer by the key its id is made from.
        try FileManager.default.removeItem(atPath: StoreLayout(root: laptop.path).signingKey)
        try ReplicaSigningKey.generate().write(to: StoreLayout(root: laptop.path).signingKey)
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        await #expect {
            _ = try await desk.sync(with: FolderTransport(path: laptop.path))
        } throws: { error in
            guard case SyncError.stateRefused(_, let reason) = error else { return false }
            return reason.contains("not the key replica \(laptop.replicaID.short)'s id is made from")
        }
        try expectNothingJoined(desk)
    }

    @Test func aPeerWithoutAKeyStillJoinsAndTheJoinSaysItsStateIsItsWord() async throws {
        let directory = try TemporaryDirectory()
        let laptop = try laptop(at: directory.subpath("laptop"))
        try FileManager.default.removeItem(atPath: StoreLayout(root: laptop.path).signingKey)
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        let joined = try await desk.sync(with: FolderTransport(path: laptop.path))
        #expect(joined.snapshot?.reason == .join)
        #expect(joined.notes.contains { $0.contains("did not sign its state") && $0.contains("are its word") }, "\(joined.notes)")
        #expect(try desk.get(entity: Self.notes, id: id("r2"))?["title"] == "second")
        #expect(try desk.snapshotJoins()?.joins.first?.statement == nil)
    }

    @Test func aForgedStateThroughFerryServeIsRefusedAndAnHonestOneJoins() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.subpath("server")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let honest = try laptop(at: root + "/honest")
        let forged = try laptop(at: root + "/forged")
        try forge(store: forged.path, record: "r1", alterR1)
        let server = try RemoteServer(root: root)
        defer { Task { await server.stop() } }

        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        await #expect {
            try await sync(desk, with: server, "forged")
        } throws: { error in
            guard case SyncError.stateRefused(let peer, let reason) = error else { return false }
            return peer.hasSuffix("/forged") && reason.contains("does not follow version 1")
        }
        try expectNothingJoined(desk)

        let joined = try await sync(desk, with: server, "honest")
        #expect(joined.snapshot?.reason == .join)
        #expect(try desk.get(entity: Self.notes, id: id("r1"))?["title"] == "real")
        let statement = try #require(try desk.snapshotJoins()?.joins.first?.statement)
        #expect(try StateStatement(json: statement).replica == honest.replicaID)
    }

    @Test func aVersionAlteredAfterThePeerStatedItsStateIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let laptop = try laptop(at: directory.subpath("laptop"), editedAgain: true)
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        // Between the peer and the joiner (a proxy, a cache), r1's version is altered with a
        // fresh digest after the peer stated the state; no parent link in the state reaches
        // it (the state holds changes 1 and 3), so only the statement can tell.
        let tampering = TamperingPeer(FolderTransport(path: laptop.path)) { page in
            page.compactMap { change in
                guard change.key.id == (try? RecordID("r1")) else { return change }
                var altered = change
                altered.operation = .put(["title": "forged"])
                altered.chain = ChangeChain(altered, parent: change.chainOrLegacy.parent)
                return altered
            }
        }
        await #expect {
            _ = try await desk.sync(with: tampering)
        } throws: { error in
            guard case SyncError.stateRefused(_, let reason) = error else { return false }
            return reason.contains("do not give the state digest it signed")
        }
        try expectNothingJoined(desk)
    }

    @Test func aServedOfferWithoutAStatementIsReadAsBeforeAndOneWithAStatementKeepsIt() throws {
        // What a server from before statements sends: no "statement" member.
        let old = #"{"offer":{"changes":2,"digests":{},"holdsHistory":true,"id":"\#(String(repeating: "ab", count: 32))","knowledge":{},"position":2,"reason":"join","records":2}}"#
        let offer = try #require(try StateOffer.offer(body: Array(old.utf8)))
        #expect(offer.statement == nil && offer.position == 2)
        var signed = offer
        signed.statement = ["ferry-store-state": 1, "sig": "…"]
        #expect(try StateOffer.offer(body: StateOffer.responseBody(signed))?.statement == signed.statement)
    }
}

/// A peer store seen through something that rewrites the versions of the state it offers.
final class TamperingPeer: ForwardingFolderPeer, @unchecked Sendable {
    let rewrite: @Sendable ([Change]) -> [Change]

    init(_ peer: FolderTransport, rewrite: @escaping @Sendable ([Change]) -> [Change]) {
        self.rewrite = rewrite
        super.init(peer)
    }

    override func snapshotChanges(limit: Int) async throws(SyncError) -> [Change]? {
        try await inner.snapshotChanges(limit: limit).map(rewrite)
    }
}
