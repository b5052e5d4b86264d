/// A replica's signature on one of its changes, and the public key that made it: the change's
/// `sig` field, `<key, 64 hex digits><signature, 128 hex digits>`.
///
/// A replica seals the last change of every batch it writes (and every 1,024th change of a
/// long one). The seal signs the change's ``ChangeChain/digest``, which covers its `parent`,
/// which covers the change before, and so on: one signature vouches for every earlier change of
/// its origin, so a receiver checks one signature a run of changes, not one a change.
///
/// ```swift
/// let seal = ChangeSeal(signing: chain.digest, with: key)
/// seal.isValid(for: chain.digest)   // true
/// ```
public struct ChangeSeal: Sendable, Hashable {
    /// The key that signed: the origin's own (checked by whoever receives the change).
    public let signer: ReplicaPublicKey
    /// The 64-byte Ed25519 signature of ``message(for:)``.
    public let signature: [UInt8]

    /// The field's length: 64 hex digits of key and 128 of signature.
    static let textLength = 192

    /// Wraps a seal as read.
    public init(signer: ReplicaPublicKey, signature: [UInt8]) {
        self.signer = signer
        self.signature = signature
    }

    /// Seals `digest` with `key`.
    package init(signing digest: SHA256Digest, with key: ReplicaSigningKey) {
        signer = key.publicKey
        signature = key.signature(for: Self.message(for: digest))
    }

    /// What the seal signs: the domain `ferry-change-v1:` and the digest's 32 bytes, so that a
    /// change's signature can never be replayed as some other object's.
    public static func message(for digest: SHA256Digest) -> [UInt8] {
        Array("ferry-change-v1:".utf8) + digest.bytes
    }

    /// Whether the seal is ``signer``'s signature of `digest` (strict: no malleable or
    /// non-canonical signature passes).
    public func isValid(for digest: SHA256Digest) -> Bool {
        signer.isValidSignature(signature, for: Self.message(for: digest))
    }

    /// The field's text.
    public var text: String { String(decoding: textBytes, as: UTF8.self) }

    /// The field's text as bytes.
    var textBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.textLength)
        HexText.append(signer.rawRepresentation, to: &bytes)
        HexText.append(signature, to: &bytes)
        return bytes
    }

    /// Reads the field's text; `nil` when it is not 192 hex digits. The key's point is decoded
    /// only when the signature is checked (``isValid(for:)`` fails for a key off the curve).
    public init?(text: String) {
        self.init(textBytes: Array(text.utf8))
    }

    /// Reads the field's text from bytes.
    init?(textBytes bytes: some Collection<UInt8>) {
        guard bytes.count == Self.textLength, let raw = HexText.bytes(bytes) else { return nil }
        self.init(signer: ReplicaPublicKey(undecoded: Array(raw[0..<32])), signature: Array(raw[32..<96]))
    }
}
