/// What a store or a user holds that may open an encrypted hub: a member's signing key (the
/// X25519 key it stands for), the hub's passphrase, or its recovery key; and where a store
/// keeps the keys once unwrapped.
///
/// ```swift
/// let access = try HubKeyAccess(store: store, passphrase: environment["FERRY_HUB_PASSPHRASE"])
/// let storage = SealedHubStorage(base: FolderHubStorage(root: path), access: access)
/// ```
public struct HubKeyAccess: Sendable {
    /// The replica and its signing key, when a store is given.
    var signer: (replica: ReplicaID, key: ReplicaSigningKey)?
    /// The store whose `.ferry/peers/<hub>/hub-keys.json` keeps the unwrapped keys.
    var layout: StoreLayout?
    /// The hub's passphrase (from a prompt or `FERRY_HUB_PASSPHRASE`, never from argv).
    public var passphrase: String?
    /// The hub's recovery key.
    public var recoveryKey: HubRecoveryKey?
    /// Asks for the passphrase (a terminal prompt) when nothing else given opens the hub's keys
    /// and the hub has a passphrase: only then, so a sync that holds its keys never asks.
    public var askPassphrase: (@Sendable () -> String?)?

    /// Nothing: opens only a hub that is not encrypted.
    public init() {}

    /// The access `store` gives (its key, and its cache of unwrapped keys), with a passphrase
    /// or recovery key besides.
    /// - Throws: ``StoreError`` when the store's signing key cannot be read.
    public init(store: Store?, passphrase: String? = nil, recoveryKey: HubRecoveryKey? = nil) throws(StoreError) {
        if let store {
            signer = (store.replicaID, try store.signingKey())
            layout = store.layout
        }
        self.passphrase = passphrase
        self.recoveryKey = recoveryKey
    }

    package init(signer: (replica: ReplicaID, key: ReplicaSigningKey)?, layout: StoreLayout?, passphrase: String? = nil, recoveryKey: HubRecoveryKey? = nil) {
        self.signer = signer
        self.layout = layout
        self.passphrase = passphrase
        self.recoveryKey = recoveryKey
    }

    /// Where the unwrapped keys of the hub at `location` are kept; `nil` without a store.
    func cachePath(for location: String) -> String? {
        layout.map { HubCache.memory(for: location, in: $0).folder + "/" + HubKeyring.cacheName }
    }

    /// What this access can try, said in a message ("this store's key, the passphrase").
    var held: String {
        var parts: [String] = []
        if let signer { parts.append("the key of replica \(signer.replica.short)") }
        if passphrase != nil { parts.append("the passphrase") }
        if recoveryKey != nil { parts.append("the recovery key") }
        return parts.isEmpty ? "no key, passphrase or recovery key" : parts.joined(separator: ", ")
    }

    /// The X25519 keys to try on `entry`: the store's, the recovery key's, and the passphrase's
    /// (derived with scrypt only when the entry has a passphrase recipient).
    func identities(for entry: HubKeyEntry, location: String) throws(HubError) -> [X25519PrivateKey] {
        var identities: [X25519PrivateKey] = []
        if let signer { identities.append(signer.key.agreementKey) }
        if let recoveryKey { identities.append(recoveryKey.agreementKey) }
        if let passphrase, let recipient = entry.passphraseRecipient, case .passphrase(let salt, let parameters) = recipient.kind {
            identities.append(try Self.passphraseKey(passphrase, salt: salt, parameters: parameters, location: location))
        }
        return identities
    }

    /// A new passphrase's recipient: a fresh salt, scrypt with cost `cost`, and the public key
    /// they make.
    static func passphraseRecipient(_ passphrase: String, cost: Int, location: String) throws(HubError) -> HubKeyEntry.RecipientKey {
        let salt = HubKeyring.randomBytes(16)
        let parameters = Scrypt.Parameters(cost: cost, blockSize: 8, parallelism: 1)
        let key = try passphraseKey(passphrase, salt: salt, parameters: parameters, location: location)
        return (.passphrase(salt: salt, parameters: parameters), key.publicKey)
    }

    /// The X25519 key scrypt makes of `passphrase`.
    static func passphraseKey(_ passphrase: String, salt: [UInt8], parameters: Scrypt.Parameters, location: String) throws(HubError) -> X25519PrivateKey {
        let secret: [UInt8]
        do { secret = try Scrypt.derive(passphrase: Array(passphrase.utf8), salt: salt, parameters: parameters, length: 32) } catch {
            throw .locked(location: location, reason: "the hub's passphrase parameters are refused (\(error))")
        }
        return (try? X25519PrivateKey(rawRepresentation: secret)) ?? .generate()
    }
}
