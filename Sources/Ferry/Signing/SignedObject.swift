/// A JSON object signed by a replica's key: a hub snapshot's manifest, a hub's members list.
///
/// The object carries two members, `"signer"` (the public key, 64 hex digits) and `"sig"` (the
/// Ed25519 signature, 128 hex digits). The signature covers a domain, which names the kind of
/// object so that one kind's signature can never pass for another's, followed by the object's
/// canonical JSON bytes without its `"sig"` member (`"signer"` included):
///
/// ```swift
/// let signed = SignedObject.signing(["n": 1], domain: "ferry-example-v1:", with: key)
/// SignedObject.verdict(on: signed, domain: "ferry-example-v1:")   // .signed(by: key.publicKey)
/// ```
public enum SignedObject {
    /// What the signature of an object says.
    public enum Verdict: Sendable, Equatable {
        /// It carries neither `signer` nor `sig` (written before objects were signed).
        case unsigned
        /// It is `signer`'s valid signature of the object.
        case signed(by: ReplicaPublicKey)
        /// Its `signer` or `sig` is not one, or the signature does not check: one line why.
        case invalid(String)
    }

    /// `object` with `signer` and `sig` members: `key`'s signature of it under `domain`.
    package static func signing(_ object: [String: JSONValue], domain: String, with key: ReplicaSigningKey) -> [String: JSONValue] {
        var members = object
        members["sig"] = nil
        members["signer"] = .string(key.publicKey.hex)
        let signature = key.signature(for: message(members, domain: domain))
        members["sig"] = .string(HexText.string(signature))
        return members
    }

    /// The bytes a signature covers: the domain, then the object's canonical JSON without `sig`.
    public static func message(_ object: [String: JSONValue], domain: String) -> [UInt8] {
        var members = object
        members["sig"] = nil
        return Array(domain.utf8) + JSONValue.object(members).canonicalBytes()
    }

    /// Checks the object's signature under `domain` (strict Ed25519: no malleable signature passes).
    public static func verdict(on object: [String: JSONValue], domain: String) -> Verdict {
        let signerValue = object["signer"]
        let signatureValue = object["sig"]
        if signerValue == nil && signatureValue == nil { return .unsigned }
        guard let signerText = signerValue?.stringValue, let signer = ReplicaPublicKey(hex: signerText) else {
            return .invalid("its \"signer\" is not a public key (64 hex digits)")
        }
        guard let signatureText = signatureValue?.stringValue, let signature = HexText.bytes(signatureText), signature.count == 64 else {
            return .invalid("its \"sig\" is not a signature (128 hex digits)")
        }
        guard signer.isValidSignature(signature, for: message(object, domain: domain)) else {
            return .invalid("its signature by key \(signer.short)… does not check (altered after it was signed)")
        }
        return .signed(by: signer)
    }
}
