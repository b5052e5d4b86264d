/// Creating an encrypted hub, and changing who can open it (`ferry hub init --encrypt`,
/// `ferry hub members add|remove`, `ferry hub rekey`).
extension Hub {
    /// What `hub init --encrypt` made: the hub, and its recovery key (printed once, kept nowhere).
    public struct EncryptedCreation: Sendable {
        public var descriptor: HubDescriptor
        public var recoveryKey: HubRecoveryKey
        /// The key entry that wraps the data key (`hub-keys/00000001.json`).
        public var keysKey: String
    }

    /// The scrypt cost N of a passphrase (2^17: 128 MiB, about half a second, as age and libsodium use).
    public static let defaultPassphraseCost = 1 << 17

    /// Makes `storage` a new, empty, encrypted hub whose first member is `founder`: a random data
    /// key, wrapped for the founder, the recovery key and (when given) the passphrase, in a key
    /// entry the founder signs. The founder's store keeps the unwrapped key (mode 0600).
    /// - Parameters:
    ///   - passphraseCost: scrypt's N for the passphrase (a power of two).
    /// - Throws: as ``create(in:founder:clock:)``; ``HubError/locked(location:reason:)`` when the
    ///   founder's key cannot be read or its copy of the keys saved.
    public static func createEncrypted(
        in storage: any HubStorage, founder: Store?, passphrase: String?, padding: HubPadding = .none,
        passphraseCost: Int = defaultPassphraseCost, clock: any WallClock = SystemClock()
    ) async throws(HubError) -> EncryptedCreation {
        let base = (storage as? SealedHubStorage)?.base ?? storage
        // Without a founder, a one-time key signs the first entry (a hub with no members, opened
        // by the passphrase or the recovery key; later entries must carry the same signature).
        let signer: ReplicaSigningKey
        do { signer = try founder?.signingKey() ?? .generate() } catch {
            throw .locked(location: base.location, reason: "the store's signing key cannot be read (\(error))")
        }
        let signerReplica = founder?.replicaID ?? ReplicaID(derivedFrom: signer.publicKey)
        try await requireEmpty(base)
        // A hub made with no founder is opened by its passphrase or recovery key alone: whoever
        // holds them may write (no replica founds a members list on its first write).
        let descriptor = HubDescriptor(format: HubDescriptor.encryptedFormat, created: clock.milliseconds(), isOpenToAnyWriter: founder == nil)
        if let founder { try await recordFounder(founder, signer: signer, hub: descriptor.id, in: base, clock: clock) }
        let recovery = HubRecoveryKey.generate()
        var recipients: [HubKeyEntry.RecipientKey] = [(.recovery, recovery.agreementKey.publicKey)]
        if let founder { recipients.insert((.member(founder.replicaID), signer.publicKey.agreementKey), at: 0) }
        if let passphrase {
            recipients.append(try HubKeyAccess.passphraseRecipient(passphrase, cost: passphraseCost, location: base.location))
        }
        var keyring = HubKeyring.generate(hub: descriptor.id, padding: padding)
        keyring.entry = 1
        let entry = try HubKeyEntry.make(keyring, number: 1, for: recipients, signer: (signerReplica, signer))
        if let founder, let path = HubKeyAccess(signer: (founder.replicaID, signer), layout: founder.layout).cachePath(for: base.location) {
            try keyring.save(to: path, location: base.location)
        }
        _ = try await base.put(HubKeyEntry.key(of: 1), entry.bytes, createOnly: true)
        try await putDescriptor(descriptor, in: base)
        return EncryptedCreation(descriptor: descriptor, recoveryKey: recovery, keysKey: HubKeyEntry.key(of: 1))
    }

    /// Refuses a location that holds anything (creating a missing folder).
    static func requireEmpty(_ storage: any HubStorage) async throws(HubError) {
        if let folder = storage as? FolderHubStorage {
            do { _ = try FileSystem.createDirectories(folder.root) } catch {
                throw .storage("\(folder.root): cannot create the hub folder: \(error.message)")
            }
        }
        let existing = try await storage.list(prefix: "")
        if existing.contains(where: { $0.key == HubDescriptor.key }) { throw .alreadyExists(location: storage.location) }
        if let first = existing.first { throw .notEmpty(location: storage.location, example: first.key) }
    }

    /// Writes the descriptor, create-only: the last object `hub init` writes.
    static func putDescriptor(_ descriptor: HubDescriptor, in storage: any HubStorage) async throws(HubError) {
        do { _ = try await storage.put(HubDescriptor.key, descriptor.bytes, createOnly: true) } catch {
            if case .alreadyExists = error { throw .alreadyExists(location: storage.location) }
            throw error
        }
    }

    /// Records `founder` as the hub's first member (the first replica to use a hub records its key).
    static func recordFounder(_ founder: Store, signer: ReplicaSigningKey, hub: ReplicaID, in storage: any HubStorage, clock: any WallClock) async throws(HubError) {
        let members = HubMembers(hub: hub)
        let first = members.entry(.add, replica: founder.replicaID, key: signer.publicKey, name: founder.replicaName, by: signer, at: clock.milliseconds())
        try await HubMembers.write(first, to: storage)
    }

    /// What a change of keys did.
    public struct Rekeying: Sendable {
        /// The key entry written.
        public var key: String
        /// Whether a new data key seals what is written from now on.
        public var rotated: Bool
        /// The current members the keys are wrapped for.
        public var members: [ReplicaID]
        /// Whether the passphrase still opens the hub.
        public var passphrase: Bool
        public var recovery: Bool
    }

    /// Wraps the hub's keys anew for its current members (and the passphrase and recovery key
    /// the newest entry has), signed by `store`, which must hold them; with `rotate`, adds a new
    /// data key that seals everything written from now on (a removed member keeps only the
    /// older ones). Nothing is written on a hub that is not encrypted.
    /// - Returns: `nil` when the hub is not encrypted.
    public static func rekey(_ storage: any HubStorage, as store: Store, rotate: Bool) async throws(HubError) -> Rekeying? {
        let base = (storage as? SealedHubStorage)?.base ?? storage
        let signer: ReplicaSigningKey
        do { signer = try store.signingKey() } catch { throw .locked(location: base.location, reason: "the store's signing key cannot be read (\(error))") }
        let sealed = SealedHubStorage(base: base, access: HubKeyAccess(signer: (store.replicaID, signer), layout: store.layout))
        let listed = try await sealed.list(prefix: "h")
        guard let keyring = sealed.keyring else { return nil }
        if case .sealed(_, let stale?) = sealed.state { throw .locked(location: base.location, reason: stale) }
        let newest = listed.compactMap { HubKeyEntry.number(ofKey: $0.key) }.max() ?? 0
        guard let fetched = try await base.get(HubKeyEntry.key(of: newest), limit: HubKeyEntry.maximumByteCount) else {
            throw .locked(location: base.location, reason: "\(HubKeyEntry.key(of: newest)) vanished; run again")
        }
        let previous = try HubKeyEntry(bytes: fetched.bytes, key: HubKeyEntry.key(of: newest), location: base.location)
        guard let members = try await HubMembers.read(from: base, hub: keyring.hub) else {
            throw .locked(location: base.location, reason: "the hub has no members list to wrap its keys for")
        }
        guard members.member(withKey: signer.publicKey) != nil else {
            throw .locked(location: base.location, reason: "this store (replica \(store.replicaID.short)) is not a member of the hub")
        }
        var recipients: [HubKeyEntry.RecipientKey] = members.current.values.sorted { $0.replica < $1.replica }.map { (.member($0.replica), $0.key.agreementKey) }
        for recipient in previous.recipients {
            switch recipient.kind {
            case .member: continue
            case .passphrase, .recovery: recipients.append((recipient.kind, recipient.publicKey))
            }
        }
        var next = rotate ? keyring.rotated() : keyring
        next.entry = newest + 1
        let entry = try HubKeyEntry.make(next, number: newest + 1, for: recipients, signer: (store.replicaID, signer))
        // The store's copy first: it must never find the hub sealed under a key it lost.
        if let path = sealed.access.cachePath(for: base.location) { try next.save(to: path, location: base.location) }
        do { _ = try await base.put(HubKeyEntry.key(of: newest + 1), entry.bytes, createOnly: true) } catch {
            guard case .alreadyExists = error else { throw error }
            throw .locked(location: base.location, reason: "another member changed the hub's keys at the same time; run the command again")
        }
        return Rekeying(
            key: HubKeyEntry.key(of: newest + 1), rotated: rotate, members: members.current.keys.sorted(),
            passphrase: previous.passphraseRecipient != nil, recovery: previous.recipients.contains { $0.kind == .recovery })
    }
}
