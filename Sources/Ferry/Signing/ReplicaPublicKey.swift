/// The public half of a replica's signing key (Ed25519): what checks the replica's changes,
/// hub heads and snapshots, written as 64 hex digits.
///
/// A replica made since changes are signed has an id derived from this key
/// (``ReplicaID/init(derivedFrom:)``), so its id alone says which key speaks for it; an older
/// replica's key is learned when its first signed change arrives, and held from then on.
public struct ReplicaPublicKey: Sendable, Hashable, CustomStringConvertible {
    let key: Ed25519PublicKey

    /// A key from its 32-byte encoding; `nil` when the bytes are not a point of the curve.
    public init?(rawRepresentation bytes: [UInt8]) {
        guard let key = try? Ed25519PublicKey(rawRepresentation: bytes) else { return nil }
        self.key = key
    }

    init(_ key: Ed25519PublicKey) { self.key = key }

    /// A key read from a change's `sig` without decoding its point: decoding costs a square
    /// root in the field (about 40 µs), and a journal holds a signature a batch. Checking a
    /// signature decodes the point and refuses one that is not on the curve, so nothing
    /// checked rests on an undecoded key.
    init(undecoded bytes: [UInt8]) { key = Ed25519PublicKey(verifiedEncoding: bytes) }

    /// A key from its 64 hex digits; `nil` when they are not one.
    public init?(hex: String) {
        guard let bytes = HexText.bytes(hex), let key = try? Ed25519PublicKey(rawRepresentation: bytes) else { return nil }
        self.key = key
    }

    /// The 32-byte encoding.
    public var rawRepresentation: [UInt8] { key.rawRepresentation }

    /// The 64 lowercase hex digits.
    public var hex: String { HexText.string(key.rawRepresentation) }

    /// The first 16 hex digits, as messages show a key.
    public var short: String { String(hex.prefix(16)) }

    public var description: String { hex }

    /// The X25519 public key of the same replica: the Montgomery u = (1 + y) / (1 − y) of this
    /// Edwards point (RFC 7748, section 4.1), which ``ReplicaSigningKey/agreementKey`` agrees with.
    package var agreementKey: [UInt8] {
        let y = FieldElement25519(bytes: key.rawRepresentation)
        let one = FieldElement25519(1)
        return ((one + y) * (one - y).inverted()).encoded()
    }

    /// Whether `signature` is this key's strict Ed25519 signature of `message`.
    public func isValidSignature(_ signature: [UInt8], for message: some Collection<UInt8>) -> Bool {
        key.isValidSignature(signature, for: message)
    }
}
