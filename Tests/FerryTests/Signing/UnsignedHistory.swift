import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// Work as an older Ferry or a forger makes it, for the signing tests: stores from before
/// changes were signed, and changes published under another replica's identity.
enum UnsignedHistory {
    static let notes = try! EntityName("Note")

    /// A change of `victim`'s replica that `victim` never made: the next counter, chained on its
    /// latest digest (a valid digest and the right parent), signed by `key` when given.
    static func forgedNextChange(of victim: Store, id: String, signedBy key: ReplicaSigningKey?) throws -> Change {
        let frontier = try victim.currentFrontier()
        let counter = frontier.knowledge[victim.replicaID] + 1
        var version = VersionVector()
        version[victim.replicaID] = counter
        var change = Change(
            origin: victim.replicaID, counter: counter, timestamp: HybridTimestamp(physical: SystemClock().milliseconds()),
            key: RecordKey(entity: notes, id: try RecordID(id)), operation: .put(["forged": true]), version: version)
        var chain = ChangeChain(change, parent: frontier.digests[victim.replicaID] ?? .zero)
        if let key { chain.seal = ChangeSeal(signing: chain.digest, with: key) }
        change.chain = chain
        return change
    }

    /// Appends `changes` to the journal of the store at `path` as a co-writer with write access
    /// to its folder would, bypassing every check, and reopens it.
    static func smuggle(_ changes: [Change], into path: String) throws {
        let store = try Store.open(at: path)
        var pending: [Journal.Pending] = []
        for change in changes {
            pending.append(Journal.Pending(change: change, previousSequenceOfRecord: try store.state(of: change.key)?.lastSequence ?? 0))
        }
        store.close()
        let journal = try Journal(directory: path + "/journal", warn: { _ in })
        _ = try journal.append(pending)
        journal.close()
    }

    /// What an older Ferry made: a random replica id, no key file, and `ids` put by unsigned changes.
    static func legacyStore(at path: String, ids: [String]) throws -> Store {
        try Store.create(at: path).close()
        let manifestPath = path + "/ferry.json"
        let manifest = try String(contentsOfFile: manifestPath, encoding: .utf8)
        let fresh = try Store.open(at: path)
        let former = fresh.replicaID
        fresh.close()
        let replica = ReplicaID.generate()
        try manifest.replacingOccurrences(of: former.rawValue, with: replica.rawValue).write(toFile: manifestPath, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: path + "/.ferry/signing-key")
        var parent = SHA256Digest.zero
        var changes: [Change] = []
        for (offset, id) in ids.enumerated() {
            let counter = UInt64(offset + 1)
            var change = Change(
                origin: replica, counter: counter, timestamp: HybridTimestamp(physical: 1_700_000_000_000 + counter),
                key: RecordKey(entity: notes, id: try RecordID(id)), operation: .put(["n": .integer(Int64(offset))]),
                version: VersionVector([replica: counter]))
            change.chain = ChangeChain(change, parent: parent)
            parent = change.digest
            changes.append(change)
        }
        try Self.smuggle(changes, into: path)
        return try Store.open(at: path)
    }
}
