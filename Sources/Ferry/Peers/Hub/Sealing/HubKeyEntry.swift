/// One entry of an encrypted hub's key list, `hub-keys/<n>.json`: the hub's keyring
/// (``HubKeyring``), sealed under a random file key, and that file key wrapped for each
/// recipient, as age does: an ephemeral X25519 key agrees with the recipient's, HKDF-SHA-256
/// makes a wrapping key of the shared secret, and ChaCha20-Poly1305 seals the file key with it.
///
/// Recipients are the hub's members (the X25519 keys their signing keys stand for), the
/// passphrase (an X25519 key derived with scrypt from it, whose public half and parameters the
/// entry keeps, so that a rotation wraps to it without knowing the passphrase) and the recovery
/// key. The newest entry is the one read. It is signed by a member: a bucket owner cannot add a
/// recipient of their own and so read what is written next.
struct HubKeyEntry: Sendable {
    static let prefix = "hub-keys/"
    static let format: Int64 = 1
    static let signatureDomain = "ferry-hub-keys-v1:"
    static let maximumByteCount = 1 << 20
    static let wrapLabel = Array("ferry hub key wrap".utf8)

    /// Who a recipient is.
    enum Kind: Sendable, Equatable {
        case member(ReplicaID)
        case passphrase(salt: [UInt8], parameters: Scrypt.Parameters)
        case recovery
    }

    /// The file key, wrapped for one recipient.
    struct Recipient: Sendable {
        var kind: Kind
        /// The recipient's X25519 public key.
        var publicKey: [UInt8]
        var ephemeral: [UInt8]
        var wrapped: [UInt8]
    }

    var number: Int
    var hub: ReplicaID
    var recipients: [Recipient]
    var nonce: [UInt8]
    /// The sealed keyring.
    var sealedKeys: [UInt8]
    var signer: ReplicaID?
    var signerKey: ReplicaPublicKey?
    var signature: [UInt8]?

    static func key(of number: Int) -> String {
        let digits = String(number)
        return prefix + String(repeating: "0", count: max(0, 8 - digits.count)) + digits + ".json"
    }

    static func number(ofKey key: String) -> Int? {
        guard key.hasPrefix(prefix), key.hasSuffix(".json") else { return nil }
        guard let number = Int(key.dropFirst(prefix.count).dropLast(5)), number > 0, Self.key(of: number) == key else { return nil }
        return number
    }

    /// A recipient's public key and who it is, before wrapping.
    typealias RecipientKey = (kind: Kind, publicKey: [UInt8])

    /// The entry numbered `number` carrying `keyring` for `recipients`, signed by `signer`.
    static func make(
        _ keyring: HubKeyring, number: Int, for recipients: [RecipientKey], signer: (replica: ReplicaID, key: ReplicaSigningKey)?
    ) throws(HubError) -> HubKeyEntry {
        var keyring = keyring
        keyring.entry = number
        let fileKey = HubKeyring.randomBytes(32)
        let nonce = HubKeyring.randomBytes(24)
        let sealed: [UInt8]
        do { sealed = try ChaCha20Poly1305.seal(keyring.jsonValue.canonicalBytes(), key: fileKey, nonce: nonce, associatedData: Array(key(of: number).utf8)) } catch {
            throw .storage("cannot seal the hub's keys: \(error)")
        }
        var wrapped: [Recipient] = []
        for recipient in recipients {
            let ephemeral = X25519PrivateKey.generate()
            let shared: [UInt8]
            do { shared = try ephemeral.sharedSecret(with: recipient.publicKey) } catch {
                throw .storage("cannot wrap the hub's key for \(recipient.kind): \(error)")
            }
            let wrapKey = HKDFSHA256.derive(secret: shared, salt: ephemeral.publicKey + recipient.publicKey, info: wrapLabel)
            let box = (try? ChaCha20Poly1305.seal(fileKey, key: wrapKey, nonce: [UInt8](repeating: 0, count: 12))) ?? []
            wrapped.append(Recipient(kind: recipient.kind, publicKey: recipient.publicKey, ephemeral: ephemeral.publicKey, wrapped: box))
        }
        var entry = HubKeyEntry(number: number, hub: keyring.hub, recipients: wrapped, nonce: nonce, sealedKeys: sealed)
        if let signer {
            entry.signer = signer.replica
            entry.signerKey = signer.key.publicKey
            entry.signature = signer.key.signature(for: Array(signatureDomain.utf8) + entry.unsignedValue.canonicalBytes())
        }
        return entry
    }

    /// The file key, unwrapped with `identity` when it is one of the recipients.
    private func fileKey(with identity: X25519PrivateKey) -> [UInt8]? {
        for recipient in recipients where recipient.publicKey == identity.publicKey {
            guard let shared = try? identity.sharedSecret(with: recipient.ephemeral) else { continue }
            let wrapKey = HKDFSHA256.derive(secret: shared, salt: recipient.ephemeral + recipient.publicKey, info: Self.wrapLabel)
            if let key = try? ChaCha20Poly1305.open(recipient.wrapped, key: wrapKey, nonce: [UInt8](repeating: 0, count: 12)) { return key }
        }
        return nil
    }

    /// The keyring, unwrapped with the first of `identities` that is a recipient; `nil` when none is.
    func keyring(with identities: [X25519PrivateKey], location: String) throws(HubError) -> HubKeyring? {
        for identity in identities {
            guard let fileKey = fileKey(with: identity) else { continue }
            guard let bytes = try? ChaCha20Poly1305.open(sealedKeys, key: fileKey, nonce: nonce, associatedData: Array(Self.key(of: number).utf8)),
                let value = try? JSONParser.parse(bytes), let keyring = HubKeyring(value), keyring.hub == hub
            else { throw .malformed(location: location, key: Self.key(of: number), reason: "its keys do not open (altered)") }
            return keyring
        }
        return nil
    }

    /// The passphrase recipient, when there is one.
    var passphraseRecipient: Recipient? {
        recipients.first { if case .passphrase = $0.kind { return true } else { return false } }
    }

    /// The members the file key is wrapped for.
    var memberRecipients: [ReplicaID] {
        recipients.compactMap { if case .member(let replica) = $0.kind { return replica } else { return nil } }
    }

    /// The entry's JSON without its signature (what the signature covers).
    private var unsignedValue: JSONValue {
        var list: [JSONValue] = []
        for recipient in recipients {
            var object: [String: JSONValue] = [
                "public": .string(HexText.string(recipient.publicKey)), "ephemeral": .string(HexText.string(recipient.ephemeral)),
                "wrapped": .string(HexText.string(recipient.wrapped)),
            ]
            switch recipient.kind {
            case .member(let replica):
                object["type"] = "member"
                object["replica"] = .string(replica.rawValue)
            case .passphrase(let salt, let parameters):
                object["type"] = "passphrase"
                object["scrypt"] = [
                    "salt": .string(HexText.string(salt)), "N": .integer(Int64(parameters.cost)), "r": .integer(Int64(parameters.blockSize)),
                    "p": .integer(Int64(parameters.parallelism)),
                ]
            case .recovery:
                object["type"] = "recovery"
            }
            list.append(.object(object))
        }
        var value: JSONValue = [
            "ferry-hub-keys": .integer(Self.format), "number": .integer(Int64(number)), "hub": .string(hub.rawValue),
            "cipher": "xchacha20-poly1305", "recipients": .array(list), "nonce": .string(HexText.string(nonce)),
            "keys": .string(HexText.string(sealedKeys)),
        ]
        if let signer, let signerKey {
            value["signer"] = .string(signer.rawValue)
            value["signerKey"] = .string(signerKey.hex)
        }
        return value
    }

    var bytes: [UInt8] {
        var value = unsignedValue
        if let signature { value["signature"] = .string(HexText.string(signature)) }
        return value.prettyBytes() + [UInt8(ascii: "\n")]
    }

    /// Reads an entry stored at `key`.
    /// - Throws: ``HubError/malformed(location:key:reason:)`` for anything that is not one.
    init(bytes: [UInt8], key: String, location: String) throws(HubError) {
        func bad(_ reason: String) -> HubError { .malformed(location: location, key: key, reason: reason) }
        guard let value = try? JSONParser.parse(bytes, options: .init(maximumDepth: 8, maximumByteCount: Self.maximumByteCount)) else {
            throw bad("not JSON (not fully arrived yet?)")
        }
        guard value["ferry-hub-keys"]?.integerValue == Self.format else { throw bad("not a hub key entry of format \(Self.format)") }
        guard let number = value["number"]?.integerValue, Self.key(of: Int(number)) == key else { throw bad("its number is not its name's") }
        guard let hub = value["hub"]?.stringValue.flatMap({ ReplicaID($0) }), let nonce = value["nonce"]?.stringValue.flatMap({ HexText.bytes($0) }),
            nonce.count == 24, let sealed = value["keys"]?.stringValue.flatMap({ HexText.bytes($0) })
        else { throw bad("no hub, nonce or keys") }
        var recipients: [Recipient] = []
        for item in value["recipients"]?.arrayValue ?? [] {
            guard let publicKey = item["public"]?.stringValue.flatMap({ HexText.bytes($0) }), publicKey.count == 32,
                let ephemeral = item["ephemeral"]?.stringValue.flatMap({ HexText.bytes($0) }), ephemeral.count == 32,
                let wrapped = item["wrapped"]?.stringValue.flatMap({ HexText.bytes($0) })
            else { throw bad("a recipient without its keys") }
            let kind: Kind
            switch item["type"]?.stringValue {
            case "member":
                guard let replica = item["replica"]?.stringValue.flatMap({ ReplicaID($0) }) else { throw bad("a member recipient without a replica") }
                kind = .member(replica)
            case "passphrase":
                guard let scrypt = item["scrypt"], let salt = scrypt["salt"]?.stringValue.flatMap({ HexText.bytes($0) }),
                    let n = scrypt["N"]?.integerValue, let r = scrypt["r"]?.integerValue, let p = scrypt["p"]?.integerValue
                else { throw bad("a passphrase recipient without its scrypt parameters") }
                kind = .passphrase(salt: salt, parameters: Scrypt.Parameters(cost: Int(n), blockSize: Int(r), parallelism: Int(p)))
            case "recovery":
                kind = .recovery
            default:
                continue  // a kind of recipient a later Ferry added
            }
            recipients.append(Recipient(kind: kind, publicKey: publicKey, ephemeral: ephemeral, wrapped: wrapped))
        }
        self.init(number: Int(number), hub: hub, recipients: recipients, nonce: nonce, sealedKeys: sealed)
        if let signerText = value["signer"]?.stringValue {
            guard let signer = ReplicaID(signerText), let signerKey = value["signerKey"]?.stringValue.flatMap({ ReplicaPublicKey(hex: $0) }),
                let signature = value["signature"]?.stringValue.flatMap({ HexText.bytes($0) })
            else { throw bad("its signature is incomplete") }
            self.signer = signer
            self.signerKey = signerKey
            guard signerKey.isValidSignature(signature, for: Array(Self.signatureDomain.utf8) + unsignedValue.canonicalBytes()) else {
                throw bad("its signature does not verify (altered, or forged)")
            }
            self.signature = signature
        }
    }

    init(number: Int, hub: ReplicaID, recipients: [Recipient], nonce: [UInt8], sealedKeys: [UInt8]) {
        self.number = number
        self.hub = hub
        self.recipients = recipients
        self.nonce = nonce
        self.sealedKeys = sealedKeys
    }
}
