import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

@Suite struct Ed25519Tests {
    /// RFC 8032 section 7.1, tests 1 to 3: (secret key, public key, message, signature).
    static let rfc8032: [(String, String, String, String)] = [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
        ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
         "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
         "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    ]

    @Test(arguments: 0..<3) func rfc8032Vector(index: Int) throws {
        let (secret, public_, message, signature) = Self.rfc8032[index]
        let key = try Ed25519SigningKey(seed: try #require(HexBytes.decode(secret)))
        let messageBytes = try #require(HexBytes.decode(message))
        #expect(HexBytes.encode(key.publicKey.rawRepresentation) == public_)
        #expect(HexBytes.encode(key.signature(for: messageBytes)) == signature)
        #expect(key.publicKey.isValidSignature(try #require(HexBytes.decode(signature)), for: messageBytes))
    }

    @Test func aSignatureChecksOnlyForItsKeyAndMessage() throws {
        let key = Ed25519SigningKey.generate()
        let other = Ed25519SigningKey.generate()
        let message = Array("a batch of changes".utf8)
        let signature = key.signature(for: message)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(!other.publicKey.isValidSignature(signature, for: message))
        #expect(!key.publicKey.isValidSignature(signature, for: Array("a batch of changez".utf8)))
        for index in [0, 31, 32, 63] {
            var altered = signature
            altered[index] ^= 1
            #expect(!key.publicKey.isValidSignature(altered, for: message), "byte \(index) altered")
        }
        #expect(!key.publicKey.isValidSignature(Array(signature.dropLast()), for: message))
    }

    @Test func badKeysAreRefusedWithAReason() throws {
        #expect(throws: CryptoError.wrongLength(what: "an Ed25519 private key seed", expected: 32, found: 31)) {
            try Ed25519SigningKey(seed: [UInt8](repeating: 1, count: 31))
        }
        // y = 2 gives x² = 3 / (4d + 1), which has no square root: no point.
        var notAPoint = [UInt8](repeating: 0, count: 32)
        notAPoint[0] = 2
        #expect(throws: CryptoError.notAPoint) { try Ed25519PublicKey(rawRepresentation: notAPoint) }
        // y = p (non-canonical encoding of 0) is refused too.
        let p = try #require(HexBytes.decode("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"))
        #expect(throws: CryptoError.notAPoint) { try Ed25519PublicKey(rawRepresentation: p) }
    }

    /// A malleable signature (S + ℓ, which passes the equation) is refused.
    @Test func sPlusTheOrderIsRefused() throws {
        let key = try Ed25519SigningKey(seed: [UInt8](repeating: 7, count: 32))
        let message = Array("m".utf8)
        var signature = key.signature(for: message)
        var carry: UInt16 = 0
        let order = Scalar25519.order.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> UInt64(8 * $0)) } }
        for index in 0..<32 {
            let sum = UInt16(signature[32 + index]) + UInt16(order[index]) + carry
            signature[32 + index] = UInt8(truncatingIfNeeded: sum)
            carry = sum >> 8
        }
        #expect(carry == 0)
        #expect(!key.publicKey.isValidSignature(signature, for: message))
    }

    /// Every test of Wycheproof's `ed25519_test.json` (C2SP/wycheproof, testvectors_v1), the
    /// invalid ones included, gives its expected result.
    @Test func everyWycheproofCase() throws {
        let file = try WycheproofFile.load("ed25519_test.json")
        var count = 0
        for group in file.testGroups {
            let keyBytes = try HexBytes.field(group.publicKey?.pk)
            let key = try? Ed25519PublicKey(rawRepresentation: keyBytes)
            for test in group.tests {
                count += 1
                let message = try HexBytes.field(test.msg)
                let signature = try HexBytes.field(test.sig)
                let valid = key?.isValidSignature(signature, for: message) ?? false
                #expect(valid == (test.result == "valid"), Comment(rawValue: test.label))
            }
        }
        #expect(count == file.numberOfTests)
    }

    /// 1,000 random keys and messages: the same public keys and signatures as Python's
    /// `cryptography`, each accepts the other's signatures, and both refuse the same altered ones.
    @Test func agreesWithPythonCryptography() throws {
        guard let python = try PythonCryptography.availableOrSkip() else { return }
        var random = SeededRandom(seed: SeededRandom.environmentNumber("FERRY_SEED", default: 25519))
        var cases: [(seed: [UInt8], message: [UInt8], flippedBit: Int)] = []
        for index in 0..<1000 {
            let seed = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
            let message = (0..<(index % 200)).map { _ in UInt8.random(in: 0...255, using: &random) }
            cases.append((seed, message, Int.random(in: 0..<512, using: &random)))
        }
        let script = """
            import sys
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
            from cryptography.hazmat.primitives import serialization
            from cryptography.exceptions import InvalidSignature
            raw = serialization.Encoding.Raw, serialization.PublicFormat.Raw
            for line in sys.stdin:
                seed, message, bit = line.split()
                message = bytes.fromhex(message[1:])
                key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed))
                signature = bytearray(key.sign(message))
                signature[int(bit) // 8] ^= 1 << (int(bit) % 8)
                try:
                    key.public_key().verify(bytes(signature), message)
                    flipped_valid = 1
                except InvalidSignature:
                    flipped_valid = 0
                print(key.public_key().public_bytes(*raw).hex(), key.sign(message).hex(), flipped_valid)
            """
        let input = cases.map { "\(HexBytes.encode($0.seed)) m\(HexBytes.encode($0.message)) \($0.flippedBit)\n" }.joined()
        let lines = try PythonCryptography.run(script: script, input: input, with: python).split(separator: "\n")
        try #require(lines.count == cases.count)
        for (test, line) in zip(cases, lines) {
            let fields = line.split(separator: " ").map(String.init)
            let key = try Ed25519SigningKey(seed: test.seed)
            let signature = key.signature(for: test.message)
            #expect(HexBytes.encode(key.publicKey.rawRepresentation) == fields[0])
            // Byte for byte the same signature, so each side accepts the other's.
            #expect(HexBytes.encode(signature) == fields[1])
            #expect(key.publicKey.isValidSignature(signature, for: test.message))
            var flipped = signature
            flipped[test.flippedBit / 8] ^= 1 << UInt8(test.flippedBit % 8)
            #expect(key.publicKey.isValidSignature(flipped, for: test.message) == (fields[2] == "1"), "bit \(test.flippedBit)")
        }
    }
}
