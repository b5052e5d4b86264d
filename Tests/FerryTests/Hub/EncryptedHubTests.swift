import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// Encrypted hubs: what the storage holds is sealed and bound to its name, names carry no
/// counters, members, the passphrase and the recovery key open it, a removed member reads only
/// what it could before, a forged key entry is refused, keys are kept 0600, and a half-arrived
/// ciphertext is "not arrived yet".
@Suite struct EncryptedHubTests {
    static let notes = try! EntityName("Note")
    /// A cheap scrypt cost, so that tests do not spend seconds on a passphrase.
    static let cost = 1 << 10

    func id(_ text: String) -> RecordID { try! RecordID(text) }

    /// An encrypted hub founded by a new store "laptop" (with a passphrase when given).
    func makeHub(_ directory: TemporaryDirectory, passphrase: String? = nil, padding: HubPadding = .none) async throws
        -> (hub: String, laptop: Store, creation: Hub.EncryptedCreation)
    {
        let hub = directory.subpath("hub")
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let creation = try await Hub.createEncrypted(
            in: FolderHubStorage(root: hub), founder: laptop, passphrase: passphrase, padding: padding, passphraseCost: Self.cost)
        return (hub, laptop, creation)
    }

    func sync(_ store: Store, _ hub: String, passphrase: String? = nil, recovery: HubRecoveryKey? = nil) async throws -> SyncReport {
        let transport = HubTransport(storage: FolderHubStorage(root: hub))
        transport.passphrase = passphrase
        transport.recoveryKey = recovery
        return try await store.sync(with: transport, options: SyncOptions())
    }

    /// The hub opened as `store` sees it.
    func sealed(_ hub: String, as store: Store?, passphrase: String? = nil) throws -> SealedHubStorage {
        SealedHubStorage(base: FolderHubStorage(root: hub), access: try HubKeyAccess(store: store, passphrase: passphrase))
    }

    /// Adds `store` to the hub's members as `member`, and wraps the keys for it.
    func add(_ store: Store, to hub: String, by member: Store) async throws {
        let storage = try sealed(hub, as: member)
        _ = try await HubMembers.change(.add, replica: store.replicaID, key: try store.signingKey().publicKey, name: nil, in: storage, as: member)
        _ = try await Hub.rekey(storage, as: member, rotate: false)
    }

    func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    func files(under path: String) throws -> [String] {
        (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []).filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path + "/" + $0, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.sorted()
    }

    /// Each of `names` is a sealed object that holds no record in the clear.
    func expectSealed(_ names: [String], in hub: String) throws {
        for name in names {
            let bytes = try read(hub + "/" + name)
            #expect(Array(bytes.prefix(4)) == Array("FHS1".utf8), "\(name) is not sealed")
            #expect(!String(decoding: bytes, as: UTF8.self).contains("plaintext-"), "\(name) holds a record in the clear")
        }
    }

    // MARK: Keys

    @Test func aSigningKeysAgreementKeyIsTheBirationalMapOfItsPublicKey() throws {
        for _ in 0..<64 {
            let key = ReplicaSigningKey.generate()
            #expect(key.agreementKey.publicKey == key.publicKey.agreementKey)
        }
        // RFC 8032's first test key, and the X25519 public key libsodium's
        // crypto_sign_ed25519_pk_to_curve25519 gives for it.
        let rfc = try ReplicaSigningKey(seed: HexText.bytes("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")!)
        #expect(rfc.agreementKey.publicKey == rfc.publicKey.agreementKey)
    }

    @Test func hChaCha20MatchesTheXChaChaDraftsVector() {
        // draft-irtf-cfrg-xchacha-03, section 2.2.1.
        let key = Array(0..<32).map(UInt8.init)
        let nonce = HexText.bytes("000000090000004a0000000031415927")!
        #expect(HexText.string(ChaCha20.hChaCha20(key: key, nonce: nonce)) == "82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc")
    }

    @Test func theRecoveryKeyReadsBackAndAMistypeIsRefused() {
        let key = HubRecoveryKey.generate()
        #expect(HubRecoveryKey(key.text) == key)
        #expect(HubRecoveryKey(key.text.lowercased().replacingOccurrences(of: "-", with: " ")) == key)
        var typo = Array(key.text)
        typo[12] = typo[12] == "A" ? "B" : "A"
        #expect(HubRecoveryKey(String(typo)) == nil)
    }

    // MARK: Sealed objects

    @Test func everyObjectButTheKeysIsSealedAndNamesCarryNoCounters() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, _) = try await makeHub(directory)
        for round in 0..<3 {
            for n in 0..<5 { try laptop.put(["secret": .string("plaintext-\(round)-\(n)")], entity: Self.notes, id: id("r\(n)")) }
            _ = try await sync(laptop, hub)
        }
        let segments = try files(under: hub).filter { $0.hasPrefix("segments/") }
        #expect(segments.count == 3)
        try expectSealed(segments, in: hub)
        var compactor = HubCompactor(storage: try sealed(hub, as: laptop))
        try compactor.sign(as: laptop)
        let compaction = try await compactor.compact()
        #expect(compaction.wroteSnapshot && compaction.deletedSegments == 3)
        let names = try files(under: hub)
        #expect(names.contains("hub.json") && names.contains("hub-keys/00000001.json") && names.contains("hub-members/0001.json"))
        let parts = names.filter { $0.hasPrefix("snapshots/") }
        #expect(!parts.isEmpty && names.filter { $0.hasPrefix("segments/") }.isEmpty)
        for name in segments + parts {
            #expect(name.range(of: #"^(segments/[0-9a-f]{40}\.seg|snapshots/[0-9a-f]{40}\.part)$"#, options: .regularExpression) != nil, "\(name)")
            #expect(!name.contains(laptop.replicaID.rawValue))
        }
        try expectSealed(names.filter { !SealedHubStorage.isPlaintext($0) }, in: hub)
        #expect(names.contains { $0.hasPrefix("hub-snapshots/") } && names.contains { $0.hasPrefix("heads/") })
        // A new member joins from the sealed snapshot and reads every record.
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        try await add(phone, to: hub, by: laptop)
        let joined = try await sync(phone, hub)
        #expect(joined.snapshot != nil, "\(joined.notes)")
        #expect(try phone.get(entity: Self.notes, id: id("r4")) == ["secret": "plaintext-2-4"])
        // verify with the key checks everything.
        let verified = try await HubVerifier(storage: try sealed(hub, as: laptop)).verify()
        #expect(verified.isClean && verified.changes + verified.collected > 0, "\(verified.findings) \(verified.missing)")
    }

    @Test func anObjectMovedOrRenamedByTheStorageFailsToOpenNamingIt() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, _) = try await makeHub(directory)
        let storage = try sealed(hub, as: laptop)
        _ = try await storage.list(prefix: "h")
        _ = try await storage.put("heads/a.json", Array("one".utf8), createOnly: false)
        _ = try await storage.put("heads/b.json", Array("two".utf8), createOnly: false)
        #expect(try await storage.get("heads/a.json", limit: 100)?.bytes == Array("one".utf8))
        // The storage swaps the two objects' contents.
        try FileManager.default.removeItem(atPath: hub + "/heads/b.json")
        try FileManager.default.copyItem(atPath: hub + "/heads/a.json", toPath: hub + "/heads/b.json")
        do {
            _ = try await storage.get("heads/b.json", limit: 100)
            Issue.record("an object moved to another name opened")
        } catch {
            guard case .malformed(_, let key, let reason) = error else { throw error }
            #expect(key == "heads/b.json" && reason.contains("moved or renamed"), "\(error)")
        }
        // One altered byte fails the same way.
        var bytes = try read(hub + "/heads/a.json")
        bytes[bytes.count - 1] ^= 1
        try write(bytes, to: hub + "/heads/a.json")
        await #expect(throws: HubError.self) { _ = try await storage.get("heads/a.json", limit: 100) }
    }

    @Test func aHalfArrivedOrDoubledCiphertextIsNotArrivedYet() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, _) = try await makeHub(directory, passphrase: "pass")
        try laptop.put(["v": 1], entity: Self.notes, id: id("r0"))
        _ = try await sync(laptop, hub)
        let segment = try #require(try files(under: hub).first { $0.hasPrefix("segments/") })
        let full = try read(hub + "/" + segment)
        let tablet = try Store.create(at: directory.subpath("tablet"), name: "tablet")
        for partial in [Array(full.prefix(full.count / 2)), full + full] {
            try write(partial, to: hub + "/" + segment)
            let report = try await sync(tablet, hub, passphrase: "pass")
            #expect(report.notes.contains { $0.contains("has not fully arrived") }, "\(report.notes)")
            #expect(try tablet.get(entity: Self.notes, id: id("r0")) == nil)
        }
        try write(full, to: hub + "/" + segment)
        _ = try await sync(tablet, hub, passphrase: "pass")
        #expect(try tablet.get(entity: Self.notes, id: id("r0")) == ["v": 1])
    }

    // MARK: Who opens it

    @Test func aSecondMemberReadsOnceAddedAndNotBefore() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, _) = try await makeHub(directory)
        try laptop.put(["by": "laptop"], entity: Self.notes, id: id("r0"))
        _ = try await sync(laptop, hub)
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        let before = try folderContents(phone.path)
        do {
            _ = try await sync(phone, hub)
            Issue.record("a store that is not a member opened the hub")
        } catch {
            guard case SyncError.hub(.locked(_, let reason)) = error else { throw error }
            #expect(reason.contains("encrypted") && reason.contains("ferry hub members add"), "\(error)")
            #expect(!"\(error)".contains("\n"))
        }
        #expect(try folderContents(phone.path) == before)
        try await add(phone, to: hub, by: laptop)
        _ = try await sync(phone, hub)
        #expect(try phone.get(entity: Self.notes, id: id("r0")) == ["by": "laptop"])
        try phone.put(["by": "phone"], entity: Self.notes, id: id("r1"))
        _ = try await sync(phone, hub)
        _ = try await sync(laptop, hub)
        #expect(try laptop.get(entity: Self.notes, id: id("r1")) == ["by": "phone"])
        // A sync with nothing new still lists once and reads nothing.
        #expect(try await sync(laptop, hub).requests == 1)
    }

    @Test func aStoreWithOnlyThePassphraseOrTheRecoveryKeyJoins() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, creation) = try await makeHub(directory, passphrase: "correct horse")
        try laptop.put(["v": 1], entity: Self.notes, id: id("r0"))
        _ = try await sync(laptop, hub)
        let tablet = try Store.create(at: directory.subpath("tablet"), name: "tablet")
        _ = try await sync(tablet, hub, passphrase: "correct horse")
        #expect(try tablet.get(entity: Self.notes, id: id("r0")) == ["v": 1])
        let rescue = try Store.create(at: directory.subpath("rescue"), name: "rescue")
        _ = try await sync(rescue, hub, recovery: HubRecoveryKey(creation.recoveryKey.text))
        #expect(try rescue.get(entity: Self.notes, id: id("r0")) == ["v": 1])
        // Its keys are kept in the store only, mode 0600, and nowhere in the hub.
        let cache = HubCache.memory(for: hub, in: tablet.layout).folder + "/" + HubKeyring.cacheName
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: cache)[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o600)
        let keyring = try #require(try HubKeyring.load(from: cache, location: hub))
        let dataKey = HexText.string(try #require(keyring.keys[1]))
        for name in try files(under: hub) {
            #expect(!String(decoding: try read(hub + "/" + name), as: UTF8.self).contains(dataKey), "\(name)")
        }
    }

    @Test func aWrongPassphraseIsOneLineAndLeavesTheStoreAsItWas() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, _) = try await makeHub(directory, passphrase: "correct horse")
        try laptop.put(["v": 1], entity: Self.notes, id: id("r0"))
        _ = try await sync(laptop, hub)
        let tablet = try Store.create(at: directory.subpath("tablet"), name: "tablet")
        try tablet.put(["mine": true], entity: Self.notes, id: id("t0"))
        let before = try folderContents(tablet.path)
        let hubBefore = try folderContents(hub)
        do {
            _ = try await sync(tablet, hub, passphrase: "wrong horse")
            Issue.record("a wrong passphrase opened the hub")
        } catch {
            guard case SyncError.hub(.locked(_, let reason)) = error else { throw error }
            #expect(reason.contains("wrong passphrase") && !"\(error)".contains("\n"), "\(error)")
        }
        #expect(try folderContents(tablet.path) == before)
        #expect(try folderContents(hub) == hubBefore)
    }

    @Test func aRemovedMemberReadsWhatItCouldButNothingWrittenAfter() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, _) = try await makeHub(directory)
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        try await add(phone, to: hub, by: laptop)
        try laptop.put(["v": "old"], entity: Self.notes, id: id("r0"))
        _ = try await sync(laptop, hub)
        _ = try await sync(phone, hub)
        let oldSegments = Set(try files(under: hub).filter { $0.hasPrefix("segments/") })
        // The laptop removes the phone: a new data key seals what comes next.
        let storage = try sealed(hub, as: laptop)
        _ = try await HubMembers.change(.remove, replica: phone.replicaID, key: nil, name: nil, in: storage, as: laptop)
        let rekeyed = try #require(try await Hub.rekey(storage, as: laptop, rotate: true))
        #expect(rekeyed.rotated && rekeyed.members == [laptop.replicaID])
        try laptop.put(["v": "new"], entity: Self.notes, id: id("r1"))
        _ = try await sync(laptop, hub)
        let newSegment = try #require(Set(try files(under: hub).filter { $0.hasPrefix("segments/") }).subtracting(oldSegments).first)
        let before = try folderContents(phone.path)
        await #expect(throws: SyncError.self) { _ = try await sync(phone, hub) }
        #expect(try folderContents(phone.path) == before)
        #expect(try phone.get(entity: Self.notes, id: id("r1")) == nil)
        // With its old keys it still opens the old objects, and not the new one.
        let phoneView = try sealed(hub, as: phone)
        _ = try await phoneView.list(prefix: "h")
        let oldBytes = try read(hub + "/" + (try #require(oldSegments.first)))
        let newBytes = try read(hub + "/" + newSegment)
        let keys = try #require(phoneView.keyring?.keys)
        #expect(keys.count == 1)
        #expect(try HubSeal.epoch(of: oldBytes) == 1 && keys[1] != nil)
        #expect(try HubSeal.epoch(of: newBytes) == 2)
    }

    @Test func aKeyEntrySignedByANonMemberIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, _) = try await makeHub(directory)
        try laptop.put(["v": 1], entity: Self.notes, id: id("r0"))
        _ = try await sync(laptop, hub)
        // The bucket's owner writes an entry with a key of their own, wrapped for the laptop
        // and for themselves, signed by a replica that is not a member.
        let stranger = try Store.create(at: directory.subpath("stranger"), name: "stranger")
        let strangerKey = try stranger.signingKey()
        let descriptor = try HubDescriptor(bytes: try read(hub + "/hub.json"), location: hub)
        let forged = try HubKeyEntry.make(
            HubKeyring.generate(hub: descriptor.id, padding: .none), number: 2,
            for: [(.member(laptop.replicaID), try laptop.signingKey().publicKey.agreementKey), (.member(stranger.replicaID), strangerKey.publicKey.agreementKey)],
            signer: (stranger.replicaID, strangerKey))
        try write(forged.bytes, to: hub + "/" + HubKeyEntry.key(of: 2))
        try laptop.put(["v": 2], entity: Self.notes, id: id("r1"))
        let hubBefore = try folderContents(hub)
        do {
            _ = try await sync(laptop, hub)
            Issue.record("a forged key entry was used")
        } catch {
            guard case SyncError.hub(.malformed(_, let key, let reason)) = error else { throw error }
            #expect(key == HubKeyEntry.key(of: 2) && reason.contains("not a member"), "\(error)")
        }
        #expect(try folderContents(hub) == hubBefore, "nothing was written under the forged key")
    }

    @Test func aHubWhoseKeysVanishedIsNeverWrittenInTheClear() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, _) = try await makeHub(directory)
        _ = try await sync(laptop, hub)
        try FileManager.default.removeItem(atPath: hub + "/hub-keys")
        try laptop.put(["v": 1], entity: Self.notes, id: id("r0"))
        await #expect(throws: SyncError.self) { _ = try await sync(laptop, hub) }
        #expect(try files(under: hub).filter { $0.hasPrefix("segments/") }.isEmpty)
    }

    // MARK: Converting a plain hub

    @Test func aPlainHubIsEncryptedOnceEveryReplicaReadEverything() async throws {
        let directory = try TemporaryDirectory()
        let hub = directory.subpath("hub")
        try await Hub.create(in: FolderHubStorage(root: hub), openToAnyWriter: true)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        try laptop.put(["secret": "plaintext-laptop"], entity: Self.notes, id: id("r0"))
        _ = try await sync(laptop, hub)
        try phone.put(["secret": "plaintext-phone"], entity: Self.notes, id: id("r1"))
        _ = try await sync(phone, hub)
        // The laptop has not read the phone's segment: refused, nothing written.
        let before = try folderContents(hub)
        do {
            _ = try await Hub.encrypt(FolderHubStorage(root: hub), as: laptop, passphrase: "pass", passphraseCost: Self.cost)
            Issue.record("a hub with unread work was converted")
        } catch {
            guard case .locked(_, let reason) = error else { throw error }
            #expect(reason.contains("has not read every segment"), "\(error)")
        }
        #expect(try folderContents(hub) == before)
        _ = try await sync(laptop, hub)
        _ = try await sync(phone, hub)

        _ = try await Hub.encrypt(FolderHubStorage(root: hub), as: laptop, passphrase: "pass", passphraseCost: Self.cost)
        let names = try files(under: hub)
        try expectSealed(names.filter { !SealedHubStorage.isPlaintext($0) }, in: hub)
        #expect(names.filter { $0.hasPrefix("segments/") }.count == 2)
        // Both replicas go on (the phone with the passphrase), and a new one joins.
        try laptop.put(["secret": "plaintext-after"], entity: Self.notes, id: id("r2"))
        _ = try await sync(laptop, hub)
        _ = try await sync(phone, hub, passphrase: "pass")
        #expect(try phone.get(entity: Self.notes, id: id("r2")) == ["secret": "plaintext-after"])
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        _ = try await sync(desk, hub, passphrase: "pass")
        #expect(desk.recordCount == 3)
        #expect(try await HubVerifier(storage: try sealed(hub, as: laptop)).verify().isClean)
    }
}
