import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// The hub cache keeps which key's signature it checked on each head, so a sync does not check
/// every head's signature again when it loads the cache; a head whose signature did not check
/// is kept without that mark and is checked, and refused, again.
@Suite struct HubCacheSignatureTests {
    @Test func aCachedHeadKeepsItsCheckedSignatureAndAForgedOneStaysForged() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("a"), name: "a")
        defer { store.close() }
        let location = directory.subpath("hub")
        let key = ReplicaSigningKey.generate()
        let replica = ReplicaID(derivedFrom: key.publicKey)
        let honest = HubHead(replica: replica, name: "a", updated: 1_700_000_000_000).signed(with: key)
        #expect(honest.signature == .valid(key.publicKey))
        // The same head with a record count changed after it was signed.
        var text = String(decoding: honest.bytes, as: UTF8.self)
        text = text.replacingOccurrences(of: #""records":0"#, with: #""records":7"#)
        let forgedReplica = replica
        let forged = try HubHead(bytes: Array(text.utf8), key: HubHead.key(of: forgedReplica), expected: forgedReplica, location: location)
        guard case .invalid = forged.signature else { Issue.record("an altered head checked: \(forged.signature)"); return }

        let memory = HubCache.memory(for: location, in: store.layout)
        for (head, expectation) in [(honest, SignedObject.Signature.valid(key.publicKey)), (forged, forged.signature)] {
            var cache = HubCache()
            cache.heads[replica] = ("tag-1", head)
            try cache.save(to: memory, location: location, durable: false)
            let saved = try String(contentsOfFile: memory.hubCache, encoding: .utf8)
            #expect(saved.contains(#""checked":""#) == (head.signature == .valid(key.publicKey)))
            let loaded = try #require(HubCache.load(from: memory.hubCache, location: location))
            #expect(loaded.heads[replica]?.head.signature == expectation)
        }
    }
}
