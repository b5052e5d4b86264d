/// A replica's private signing key (Ed25519), kept in its store at `.ferry/signing-key`, file
/// mode 0600: never synced, never printed, never in a log.
///
/// `ferry init` and `ferry reidentify` make one; a store made before changes were signed gets
/// one when it is next opened for writing. A copied store carries a copy of its key, as it
/// carries its replica id; `ferry reidentify` gives the copy a new key and a new id.
package struct ReplicaSigningKey: Sendable {
    private let key: Ed25519SigningKey

    /// The first line of the file, before the seed's hex digits.
    static let header = "ferry-signing-key ed25519 "

    private init(_ key: Ed25519SigningKey) { self.key = key }

    /// A new random key.
    package static func generate() -> ReplicaSigningKey { ReplicaSigningKey(.generate()) }

    /// The key made from a 32-byte seed (for tests and vectors).
    package init(seed: [UInt8]) throws(CryptoError) { key = try Ed25519SigningKey(seed: seed) }

    /// The public half.
    package var publicKey: ReplicaPublicKey { ReplicaPublicKey(key.publicKey) }

    /// The X25519 key this signing key stands for (the birational map of RFC 7748 and libsodium's
    /// `crypto_sign_ed25519_sk_to_curve25519`): the clamped first half of SHA-512 of the seed,
    /// whose public key is ``ReplicaPublicKey/agreementKey`` of this key's public half. An
    /// encrypted hub wraps its data key to it, so a member's signing key also opens the hub.
    package var agreementKey: X25519PrivateKey {
        var scalar = Array(SHA512.hash(key.seed)[0..<32])
        scalar[0] &= 248
        scalar[31] &= 127
        scalar[31] |= 64
        // 32 bytes always make a key.
        return (try? X25519PrivateKey(rawRepresentation: scalar)) ?? X25519PrivateKey.generate()
    }

    /// The 64-byte signature of `message`.
    package func signature(for message: some Collection<UInt8>) -> [UInt8] { key.signature(for: message) }

    /// Reads the key file at `path`; `nil` when there is none.
    /// - Throws: ``StoreError/io(_:)`` when it cannot be read, or
    ///   ``StoreError/signingKeyUnreadable(path:reason:)`` when it is not a key file, or when
    ///   others may read it (mode wider than 0600).
    package static func read(at path: String) throws(StoreError) -> ReplicaSigningKey? {
        let permissions: UInt32?
        do { permissions = try FileSystem.permissions(of: path) } catch { throw .io(error) }
        guard let permissions else { return nil }
        guard permissions & 0o077 == 0 else {
            throw .signingKeyUnreadable(path: path, reason: "others may read it (mode \(String(permissions & 0o777, radix: 8))); chmod 600 it")
        }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path, limit: 4096) } catch { throw .io(error) }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.last == "\n" || text.last == "\r" { text.removeLast() }
        guard text.hasPrefix(header), let seed = HexText.bytes(String(text.dropFirst(header.count))), seed.count == 32,
            let key = try? Ed25519SigningKey(seed: seed)
        else { throw .signingKeyUnreadable(path: path, reason: "it is not a Ferry signing key file") }
        return ReplicaSigningKey(key)
    }

    /// Writes the key durably at `path`, mode 0600 from the first byte.
    package func write(to path: String) throws(StoreError) {
        let text = Self.header + HexText.string(key.seed) + "\n"
        do { try FileSystem.writeFileAtomically(path, Array(text.utf8), durable: true, permissions: 0o600) } catch { throw .io(error) }
    }
}
