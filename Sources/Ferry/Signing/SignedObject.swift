/// A JSON object signed in place by a replica: two members, `"signer"` (its public key, 64 hex
/// digits) and `"sig"` (the Ed25519 signature, 128 hex digits), over a domain-separated
/// message: the domain (`ferry-hub-head-v1:`), then the object's canonical bytes without its
/// `"sig"` member (the signer is signed too).
///
/// A domain per kind of object means a signature made for one (a head) can never be replayed
/// as another (a manifest, a change).
///
/// ```swift
/// let signed = SignedObject.signed(head.jsonValue, domain: HubHead.signingDomain, with: key)
/// SignedObject.signature(of: signed, domain: HubHead.signingDomain)   // .valid(key.publicKey)
/// ```
public enum SignedObject {
    /// What an object's signature members say.
    public enum Signature: Sendable, Hashable {
        /// No `"sig"` member: written before objects were signed, or by someone without a key.
        case unsigned
        /// Signed by this key, and the signature checks.
        case valid(ReplicaPublicKey)
        /// Signature members that are malformed, or a signature that does not check.
        case invalid(reason: String)
    }

    /// Whether a signature speaks for the replica an object claims to be from.
    public enum Standing: Sendable, Hashable {
        /// Signed by the replica's key (`learned` when the reader held no key for a replica whose
        /// id is not derived from one: trusted on first use).
        case owner(ReplicaPublicKey, learned: Bool)
        /// Unsigned, from a replica made before objects were signed that the reader holds no key
        /// for: read as before, but what it says cannot be proven.
        case unprovable
        /// Not the replica's work: why.
        case forged(reason: String)
    }

    /// `object` with `"signer"` and `"sig"` members made with `key` (any earlier ones replaced).
    package static func signed(_ object: JSONValue, domain: String, with key: ReplicaSigningKey) -> JSONValue {
        guard case .object(var members) = object else { return object }
        members.removeValue(forKey: "sig")
        members["signer"] = .string(key.publicKey.hex)
        let message = Array(domain.utf8) + JSONValue.object(members).canonicalBytes()
        members["sig"] = .string(HexText.string(key.signature(for: message)))
        return .object(members)
    }

    /// Reads and checks `object`'s signature members.
    public static func signature(of object: JSONValue, domain: String) -> Signature {
        guard case .object(var members) = object, let sigValue = members["sig"] else { return .unsigned }
        members.removeValue(forKey: "sig")
        guard let signerText = members["signer"]?.stringValue, let signer = ReplicaPublicKey(hex: signerText) else {
            return .invalid(reason: "its \"signer\" is not a public key")
        }
        guard let sigText = sigValue.stringValue, let signature = HexText.bytes(sigText), signature.count == 64 else {
            return .invalid(reason: "its \"sig\" is not 128 hex digits")
        }
        let message = Array(domain.utf8) + JSONValue.object(members).canonicalBytes()
        guard signer.isValidSignature(signature, for: message) else {
            return .invalid(reason: "its signature by key \(signer.short)… does not check (altered after it was signed)")
        }
        return .valid(signer)
    }

    /// Whether `signature` speaks for `replica`: a key-derived id names its key; for an older id,
    /// the key `held` for it must have signed, and with none held, any valid signature is its
    /// key's first appearance.
    public static func standing(of signature: Signature, for replica: ReplicaID, held: ReplicaPublicKey?) -> Standing {
        switch signature {
        case .invalid(let reason):
            return .forged(reason: reason)
        case .unsigned:
            if replica.isKeyDerived { return .forged(reason: "it is not signed, and replica \(replica.short)'s id is made from its key") }
            if let held { return .forged(reason: "it is not signed, and replica \(replica.short) signs with key \(held.short)…") }
            return .unprovable
        case .valid(let signer):
            if replica.isKeyDerived {
                return replica.isDerived(from: signer)
                    ? .owner(signer, learned: false)
                    : .forged(reason: "it is signed by key \(signer.short)…, not the key replica \(replica.short)'s id is made from")
            }
            if let held {
                return held == signer
                    ? .owner(signer, learned: false)
                    : .forged(reason: "it is signed by key \(signer.short)…, not by \(held.short)…, the key held for replica \(replica.short)")
            }
            return .owner(signer, learned: true)
        }
    }
}

extension SignedObject {
    /// What the signature of an object says, for readers that hold the object's members (a
    /// hub snapshot's manifest, a members entry): ``Signature`` by another name.
    public enum Verdict: Sendable, Equatable {
        /// It carries no `sig` (written before objects were signed).
        case unsigned
        /// It is `signer`'s valid signature of the object.
        case signed(by: ReplicaPublicKey)
        /// Its `signer` or `sig` is not one, or the signature does not check: one line why.
        case invalid(String)
    }

    /// `object` with `signer` and `sig` members: `key`'s signature of it under `domain`.
    package static func signing(_ object: [String: JSONValue], domain: String, with key: ReplicaSigningKey) -> [String: JSONValue] {
        signed(.object(object), domain: domain, with: key).objectValue ?? object
    }

    /// Checks the object's signature under `domain` (strict Ed25519: no malleable signature passes).
    public static func verdict(on object: [String: JSONValue], domain: String) -> Verdict {
        switch signature(of: .object(object), domain: domain) {
        case .unsigned: return .unsigned
        case .valid(let signer): return .signed(by: signer)
        case .invalid(let reason): return .invalid(reason)
        }
    }
}
