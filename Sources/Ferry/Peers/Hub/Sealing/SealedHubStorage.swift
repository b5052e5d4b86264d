/// A hub's storage as an encrypted hub's readers and writers see it: every object but the few
/// needed to find the keys (`hub.json`, `hub-members/`, `hub-keys/`) is sealed on the way in
/// and opened on the way out (``HubSeal``), and segments' and snapshot parts' names, which
/// carry counters and counts, are stored under opaque names (HMAC-SHA-256 of the name under a
/// key of the hub's) that readers find through the sealed heads and manifests.
///
/// On a hub that is not encrypted it passes everything through. Whether a hub is encrypted is
/// told by its listing (an encrypted hub holds `hub-keys/`), so a sync's single listing decides
/// it with no request more; a store that once unwrapped a hub's keys never writes to it in the
/// clear, even when its keys vanish from the listing.
///
/// ```swift
/// let storage = SealedHubStorage(base: FolderHubStorage(root: path), access: try HubKeyAccess(store: store))
/// let report = try await store.sync(with: HubTransport(storage: storage))
/// ```
public final class SealedHubStorage: HubStorage, @unchecked Sendable {
    /// The storage that holds the sealed objects.
    public let base: any HubStorage
    /// What may open the hub's keys.
    public var access: HubKeyAccess

    enum State {
        case undecided
        case plain
        /// `stale` names the newest key entry this store could not unwrap: it reads what it
        /// could before, and writes nothing.
        case sealed(HubKeyring, stale: String?)
    }
    private(set) var state = State.undecided
    private var collected: [String] = []

    public init(base: any HubStorage, access: HubKeyAccess = HubKeyAccess()) {
        self.base = base
        self.access = access
    }

    public var location: String { base.location }
    public var requestCount: Int { base.requestCount }
    public var notices: [String] { base.notices + collected }

    /// Whether the hub, as last listed, is encrypted.
    public var isEncrypted: Bool {
        if case .sealed = state { return true }
        return false
    }

    /// The keys in use, once a listing found the hub encrypted and they were unwrapped.
    var keyring: HubKeyring? {
        if case .sealed(let keyring, _) = state { return keyring }
        return nil
    }

    /// Objects kept in the clear: what a reader needs to find and check the keys.
    static func isPlaintext(_ key: String) -> Bool {
        key == HubDescriptor.key || key.hasPrefix(HubMembers.prefix) || key.hasPrefix(HubKeyEntry.prefix)
    }

    public func storedKey(for key: String) -> String {
        guard case .sealed(let keyring, _) = state else { return key }
        for (prefix, suffix) in [("segments/", ".seg"), ("snapshots/", ".part")] where key.hasPrefix(prefix) {
            let name = HMACSHA256.authenticate(Array(key.utf8), key: keyring.nameKey).hex.prefix(40)
            return prefix + name + suffix
        }
        return key
    }

    public func list(prefix: String) async throws(HubError) -> [HubObject] {
        collected = []
        let objects = try await base.list(prefix: prefix)
        if HubKeyEntry.prefix.hasPrefix(prefix) { try await decide(listed: objects, membersListed: HubMembers.prefix.hasPrefix(prefix)) }
        return objects
    }

    public func get(_ key: String, limit: Int) async throws(HubError) -> (bytes: [UInt8], tag: String)? {
        if Self.isPlaintext(key) { return try await base.get(key, limit: limit) }
        let keyring: HubKeyring
        switch try await decided() {
        case .sealed(let held, _): keyring = held
        default: return try await base.get(key, limit: limit)
        }
        let stored = storedKey(for: key)
        guard let fetched = try await base.get(stored, limit: HubSeal.sealedLimit(of: limit, padding: keyring.padding)) else { return nil }
        let name = stored == key ? key : "\(key) (stored as \(stored))"
        let content: [UInt8]
        do throws(HubSeal.Failure) {
            content = try HubSeal.open(fetched.bytes, name: key) { keyring.keys[$0] }
        } catch {
            switch error {
            case .incomplete:
                // A cloud drive still copying it, or a copying tool that doubled it: not there yet.
                collected.append("\(name) has not fully arrived (\(fetched.bytes.count) bytes so far); it is read at a later sync")
                return nil
            case .notSealed:
                throw .malformed(location: location, key: name, reason: "it is not sealed, in an encrypted hub: written without the hub's key, by someone else")
            case .unknownEpoch(let epoch):
                throw .locked(
                    location: location,
                    reason: "\(name) is sealed under key epoch \(epoch), which this store cannot open"
                        + (stale.map { " (\($0))" } ?? " (its keys are older: sync again)"))
            case .doesNotOpen:
                throw .malformed(location: location, key: name, reason: "it does not open under the hub's key: moved or renamed by the storage, or altered")
            }
        }
        guard content.count <= limit else { throw refusal(of: key, size: Int64(content.count), limit: limit) }
        return (content, fetched.tag)
    }

    public func put(_ key: String, _ bytes: [UInt8], createOnly: Bool) async throws(HubError) -> String {
        if Self.isPlaintext(key) { return try await base.put(key, bytes, createOnly: createOnly) }
        switch try await decided() {
        case .sealed(let keyring, let stale):
            if let stale { throw .locked(location: location, reason: "\(stale); nothing was written") }
            let sealed = HubSeal.seal(bytes, name: key, key: keyring.keys[keyring.current] ?? [], epoch: keyring.current, padding: keyring.padding)
            return try await base.put(storedKey(for: key), sealed, createOnly: createOnly)
        default:
            return try await base.put(key, bytes, createOnly: createOnly)
        }
    }

    public func delete(_ key: String) async throws(HubError) {
        if !Self.isPlaintext(key) { _ = try await decided() }
        try await base.delete(storedKey(for: key))
    }

    /// Why this store cannot write, when the newest keys were not wrapped for it.
    private var stale: String? {
        if case .sealed(_, let stale) = state { return stale }
        return nil
    }

    /// The state, deciding it from a listing of the keys when no listing did yet.
    private func decided() async throws(HubError) -> State {
        if case .undecided = state { try await decide(listed: try await base.list(prefix: HubKeyEntry.prefix), membersListed: false) }
        return state
    }

    /// Decides from `listed` (a listing that covers `hub-keys/`) whether the hub is encrypted,
    /// and unwraps its newest keys when this store does not hold them yet.
    private func decide(listed: [HubObject], membersListed: Bool) async throws(HubError) {
        let numbers = listed.compactMap { HubKeyEntry.number(ofKey: $0.key) }
        let cachePath = access.cachePath(for: location)
        var cached: HubKeyring?
        if let cachePath { cached = try HubKeyring.load(from: cachePath, location: location) }
        guard let newest = numbers.max() else {
            if cached != nil {
                throw .locked(
                    location: location,
                    reason: "the hub's keys (hub-keys/) are gone, yet this store knows the hub as encrypted; it writes nothing to it in the clear "
                        + "(restore hub-keys/ from a backup, or from another member's copy)")
            }
            state = .plain
            return
        }
        if let cached, cached.entry >= newest {
            state = .sealed(cached, stale: nil)
            return
        }
        let key = HubKeyEntry.key(of: newest)
        guard let fetched = try await base.get(key, limit: HubKeyEntry.maximumByteCount) else {
            throw .locked(location: location, reason: "\(key) vanished while it was being read; sync again")
        }
        let entry = try HubKeyEntry(bytes: fetched.bytes, key: key, location: location)
        try await authorize(entry, key: key, members: membersListed ? listed.map(\.key).filter { $0.hasPrefix(HubMembers.prefix) } : nil)
        var identities = try access.identities(for: entry, location: location)
        if try entry.keyring(with: identities, location: location) == nil, access.passphrase == nil, entry.passphraseRecipient != nil,
            let asked = access.askPassphrase?()
        {
            access.passphrase = asked
            identities = try access.identities(for: entry, location: location)
        }
        guard var keyring = try entry.keyring(with: identities, location: location) else {
            if let cached {
                state = .sealed(
                    cached,
                    stale: "the hub's keys were changed in \(key) and are not wrapped for this store (removed from the hub?): "
                        + "it still reads what was written before, and cannot write")
                return
            }
            let hint =
                access.passphrase != nil
                ? "a wrong passphrase, or a store that is not a member"
                : "a member adds this store with 'ferry hub members add', or give the passphrase in FERRY_HUB_PASSPHRASE"
            throw .locked(location: location, reason: "this hub is encrypted, and none of what was given (\(access.held)) opens its keys: \(hint)")
        }
        keyring.entry = newest
        if let cached, cached.hub == keyring.hub {
            for (epoch, old) in cached.keys where keyring.keys[epoch] == nil { keyring.keys[epoch] = old }
        }
        // Durably, before anything is sealed or opened with them.
        if let cachePath { try keyring.save(to: cachePath, location: location) }
        state = .sealed(keyring, stale: nil)
    }

    /// Refuses a key entry not signed by a member of the hub (by the key its replica id is made
    /// from, on a hub with no members list): a bucket owner cannot add a recipient of their own.
    private func authorize(_ entry: HubKeyEntry, key: String, members keys: [String]?) async throws(HubError) {
        guard let signer = entry.signer, let signerKey = entry.signerKey else {
            throw .malformed(location: location, key: key, reason: "it is not signed by a member of the hub; its keys were not used")
        }
        let members = try await HubMembers.read(from: base, hub: entry.hub, keys: keys)
        if let members {
            guard let member = members.member(withKey: signerKey), member.replica == signer else {
                throw .malformed(
                    location: location, key: key,
                    reason: "it is signed by replica \(signer.short), which is not a member of the hub; its keys were not used (forged?)")
            }
        } else {
            guard signer.isDerived(from: signerKey) else {
                throw .malformed(location: location, key: key, reason: "it is signed by a key that is not replica \(signer.short)'s; its keys were not used")
            }
            // A hub with no members: every later entry is signed by whoever signed the first.
            guard entry.number > 1 else { return }
            let firstKey = HubKeyEntry.key(of: 1)
            guard let first = try await base.get(firstKey, limit: HubKeyEntry.maximumByteCount) else {
                throw .malformed(location: location, key: key, reason: "\(firstKey), which its signer must match, is missing; its keys were not used")
            }
            guard try HubKeyEntry(bytes: first.bytes, key: firstKey, location: location).signerKey == signerKey else {
                throw .malformed(
                    location: location, key: key,
                    reason: "it is signed by replica \(signer.short), not by the signer of \(firstKey), on a hub with no members; its keys were not used (forged?)")
            }
        }
    }
}
