import Testing
import FerryTestSupport
@testable import Ferry

@Suite struct X25519Tests {
    /// RFC 7748 section 5.2: (scalar, u-coordinate, output).
    @Test func rfc7748Vectors() throws {
        let vectors = [
            ("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
             "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
             "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"),
            ("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
             "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
             "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"),
        ]
        for (scalar, u, output) in vectors {
            let key = try X25519PrivateKey(rawRepresentation: try #require(HexBytes.decode(scalar)))
            #expect(HexBytes.encode(try key.sharedSecret(with: try #require(HexBytes.decode(u)))) == output)
        }
    }

    /// RFC 7748 section 5.2's iteration: k, u ← X25519(k, u), k, from k = u = 9.
    @Test func rfc7748IteratedThousandTimes() {
        var k = [UInt8](repeating: 0, count: 32)
        k[0] = 9
        var u = k
        for iteration in 1...1000 {
            (k, u) = (X25519PrivateKey.multiply(scalar: k, u: u), k)
            if iteration == 1 { #expect(HexBytes.encode(k) == "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079") }
        }
        #expect(HexBytes.encode(k) == "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51")
    }

    /// RFC 7748 section 6.1: Alice and Bob agree.
    @Test func rfc7748DiffieHellman() throws {
        let alice = try X25519PrivateKey(rawRepresentation: try #require(HexBytes.decode("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")))
        let bob = try X25519PrivateKey(rawRepresentation: try #require(HexBytes.decode("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")))
        #expect(HexBytes.encode(alice.publicKey) == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        #expect(HexBytes.encode(bob.publicKey) == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        let shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        #expect(HexBytes.encode(try alice.sharedSecret(with: bob.publicKey)) == shared)
        #expect(HexBytes.encode(try bob.sharedSecret(with: alice.publicKey)) == shared)
    }

    /// Every test of Wycheproof's `x25519_test.json`: valid ones give the expected secret; the
    /// "acceptable" ones too, except that an all-zero secret (a low-order public key) is refused.
    @Test func everyWycheproofCase() throws {
        let file = try WycheproofFile.load("x25519_test.json")
        for test in file.tests {
            let key = try X25519PrivateKey(rawRepresentation: try HexBytes.field(test.private))
            let publicKey = try HexBytes.field(test.public)
            let expected = try #require(test.shared)
            if expected == String(repeating: "0", count: 64) {
                #expect(test.result == "acceptable", Comment(rawValue: test.label))
                #expect(throws: CryptoError.lowOrderPublicKey, Comment(rawValue: test.label)) { try key.sharedSecret(with: publicKey) }
            } else {
                #expect(HexBytes.encode(try key.sharedSecret(with: publicKey)) == expected, Comment(rawValue: test.label))
            }
        }
        #expect(file.tests.count == file.numberOfTests)
    }

    /// 1,000 random key pairs: the same public keys and shared secrets as Python's `cryptography`.
    @Test func agreesWithPythonCryptography() throws {
        guard let python = try PythonCryptography.availableOrSkip() else { return }
        var random = SeededRandom(seed: SeededRandom.environmentNumber("FERRY_SEED", default: 7748))
        let pairs = (0..<1000).map { _ in
            ((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }, (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
        let script = """
            import sys
            from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
            from cryptography.hazmat.primitives import serialization
            raw = serialization.Encoding.Raw, serialization.PublicFormat.Raw
            for line in sys.stdin:
                a, b = (X25519PrivateKey.from_private_bytes(bytes.fromhex(h)) for h in line.split())
                print(a.public_key().public_bytes(*raw).hex(), a.exchange(b.public_key()).hex())
            """
        let input = pairs.map { "\(HexBytes.encode($0.0)) \(HexBytes.encode($0.1))\n" }.joined()
        let lines = try PythonCryptography.run(script: script, input: input, with: python).split(separator: "\n")
        try #require(lines.count == pairs.count)
        for ((a, b), line) in zip(pairs, lines) {
            let fields = line.split(separator: " ").map(String.init)
            let mine = try X25519PrivateKey(rawRepresentation: a), theirs = try X25519PrivateKey(rawRepresentation: b)
            #expect(HexBytes.encode(mine.publicKey) == fields[0])
            #expect(HexBytes.encode(try mine.sharedSecret(with: theirs.publicKey)) == fields[1])
            #expect(try theirs.sharedSecret(with: mine.publicKey) == mine.sharedSecret(with: theirs.publicKey))
        }
    }
}
