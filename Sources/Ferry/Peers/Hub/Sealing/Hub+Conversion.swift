/// `ferry hub encrypt`: an existing plain hub rewritten as an encrypted one.
extension Hub {
    /// Encrypts the plain hub in `storage`: its keys are made as by
    /// ``createEncrypted(in:founder:passphrase:padding:passphraseCost:clock:)`` (wrapped for
    /// the members, or `store` when the hub has no members list, the recovery key and the
    /// passphrase), every head, segment, snapshot manifest and part is written again sealed,
    /// `hub.json` becomes format 2, and the plain objects are deleted last.
    ///
    /// Refused, with nothing written, while any replica has not read every segment of the
    /// others: those segments would be gone before it read them (sync every replica, then run
    /// it again).
    /// - Throws: ``HubError/locked(location:reason:)`` when it is encrypted already or refused.
    public static func encrypt(
        _ storage: any HubStorage, as store: Store?, passphrase: String?, padding: HubPadding = .none,
        passphraseCost: Int = defaultPassphraseCost, clock: any WallClock = SystemClock()
    ) async throws(HubError) -> EncryptedCreation {
        let base = (storage as? SealedHubStorage)?.base ?? storage
        func refuse(_ reason: String) -> HubError { .locked(location: base.location, reason: reason) }
        guard let descriptorBytes = try await base.get(HubDescriptor.key, limit: HubDescriptor.maximumByteCount)?.bytes else {
            throw .noHub(location: base.location)
        }
        var descriptor = try HubDescriptor(bytes: descriptorBytes, location: base.location)
        let objects = try await base.list(prefix: "")
        guard !descriptor.isEncrypted, !objects.contains(where: { HubKeyEntry.number(ofKey: $0.key) != nil }) else {
            throw refuse("the hub is encrypted already (or an earlier 'ferry hub encrypt' stopped half way: restore it from a copy)")
        }
        guard store != nil || passphrase != nil else { throw refuse("give a member's store (--store) or a passphrase ($FERRY_HUB_PASSPHRASE)") }

        // Every replica must have read every segment of the others.
        var heads: [ReplicaID: HubHead] = [:]
        for object in objects where object.key.hasPrefix("heads/") {
            let name = String(object.key.dropFirst("heads/".count).dropLast(".json".count))
            guard let replica = ReplicaID(name), HubHead.key(of: replica) == object.key,
                let bytes = try await base.get(object.key, limit: HubHead.maximumByteCount)?.bytes
            else { continue }
            heads[replica] = try HubHead(bytes: bytes, key: object.key, expected: replica, location: base.location)
        }
        for (writer, head) in heads {
            guard let last = head.segments.last?.number else { continue }
            for (reader, other) in heads where reader != writer && (other.read[writer] ?? 0) < last {
                throw refuse(
                    "replica \(other.name ?? reader.short) has not read every segment of replica \(head.name ?? writer.short) yet; "
                        + "sync every replica with the hub, then run it again")
            }
        }

        // The keys: for the members (or the store), the recovery key and the passphrase.
        let members = try await HubMembers.read(from: base, hub: descriptor.membersHub)
        let signer: ReplicaSigningKey
        do { signer = try store?.signingKey() ?? .generate() } catch { throw refuse("the store's signing key cannot be read (\(error))") }
        let signerReplica = store?.replicaID ?? ReplicaID(derivedFrom: signer.publicKey)
        if let members, members.member(withKey: signer.publicKey) == nil {
            throw refuse("the hub has members, and the store it runs from is not one (--store names a member's store)")
        }
        let recovery = HubRecoveryKey.generate()
        var recipients: [HubKeyEntry.RecipientKey] = [(.recovery, recovery.agreementKey.publicKey)]
        if let members {
            recipients += members.current.values.sorted { $0.replica < $1.replica }.map { (.member($0.replica), $0.key.agreementKey) }
        } else if let store {
            recipients.append((.member(store.replicaID), signer.publicKey.agreementKey))
        }
        if let passphrase {
            recipients.append(try HubKeyAccess.passphraseRecipient(passphrase, cost: passphraseCost, location: base.location))
        }
        var keyring = HubKeyring.generate(hub: descriptor.membersHub, padding: padding)
        keyring.entry = 1
        let entry = try HubKeyEntry.make(keyring, number: 1, for: recipients, signer: (signerReplica, signer))
        let access = HubKeyAccess(signer: (signerReplica, signer), layout: store?.layout, passphrase: passphrase)
        if let path = access.cachePath(for: base.location) { try keyring.save(to: path, location: base.location) }
        _ = try await base.put(HubKeyEntry.key(of: 1), entry.bytes, createOnly: true)

        // Every object again, sealed; then the descriptor; the plain objects last.
        let sealed = SealedHubStorage(base: base, access: access)
        _ = try await sealed.list(prefix: HubKeyEntry.prefix)
        var plain: [String] = []
        for object in objects where !SealedHubStorage.isPlaintext(object.key) {
            guard let bytes = try await base.get(object.key, limit: Int(clamping: object.size))?.bytes else { continue }
            let renamed = sealed.storedKey(for: object.key) != object.key
            do { _ = try await sealed.put(object.key, bytes, createOnly: renamed) } catch {
                guard case .alreadyExists = error else { throw error }
            }
            if renamed { plain.append(object.key) }
        }
        descriptor.format = HubDescriptor.encryptedFormat
        _ = try await base.put(HubDescriptor.key, descriptor.bytes, createOnly: false)
        for key in plain { try await base.delete(key) }
        return EncryptedCreation(descriptor: descriptor, recoveryKey: recovery, keysKey: HubKeyEntry.key(of: 1))
    }
}
