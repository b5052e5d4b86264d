import Testing
import FerryTestSupport
@testable import Ferry

@Suite struct ChaCha20Poly1305Tests {
    /// RFC 8439 section 2.5.2: Poly1305 alone.
    @Test func rfc8439Poly1305() throws {
        let key = try #require(HexBytes.decode("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b"))
        #expect(HexBytes.encode(Poly1305.tag(for: Array("Cryptographic Forum Research Group".utf8), key: key)) == "a8061dc1305136c6c22b8baf0c0127a9")
    }

    /// RFC 8439 section 2.4.2: ChaCha20 encryption alone (the "sunscreen" text, counter 1).
    @Test func rfc8439ChaCha20() throws {
        let key = try #require(HexBytes.decode("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"))
        let nonce = try #require(HexBytes.decode("000000000000004a00000000"))
        var data = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        ChaCha20.xor(&data, key: key, nonce: nonce, counter: 1)
        #expect(HexBytes.encode(Array(data.prefix(16))) == "6e2e359a2568f98041ba0728dd0d6981")
        #expect(HexBytes.encode(Array(data.suffix(2))) == "874d")
    }

    /// Every test of Wycheproof's `chacha20_poly1305_test.json` (RFC 8439's AEAD vector among
    /// them) and `xchacha20_poly1305_test.json` (the XChaCha draft's vector among them): valid
    /// ones seal to the expected bytes and open; invalid ones do not open. With every way of
    /// making the keystream this processor runs.
    @Test(arguments: ["chacha20_poly1305_test.json", "xchacha20_poly1305_test.json"], ChaCha20ImplementationTests.implementations)
    func everyWycheproofCase(file name: String, implementation: ChaCha20.Implementation) throws {
        let file = try WycheproofFile.load(name)
        for test in file.tests {
            let key = try HexBytes.field(test.key)
            let nonce = try HexBytes.field(test.iv)
            let aad = try HexBytes.field(test.aad)
            let message = try HexBytes.field(test.msg)
            let sealed = try HexBytes.field(test.ct) + HexBytes.field(test.tag)
            let label = Comment(rawValue: test.label)
            if test.result == "valid" {
                #expect(try ChaCha20Poly1305.seal(message, key: key, nonce: nonce, associatedData: aad, using: implementation) == sealed, label)
                #expect(try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad, using: implementation) == message, label)
            } else {
                #expect(throws: CryptoError.self, label) {
                    try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad, using: implementation)
                }
            }
        }
        #expect(file.tests.count == file.numberOfTests)
    }

    @Test func anythingAlteredDoesNotOpen() throws {
        let key = [UInt8](repeating: 3, count: 32), nonce = [UInt8](repeating: 5, count: 24)
        let sealed = try ChaCha20Poly1305.seal(Array("segment 7".utf8), key: key, nonce: nonce, associatedData: Array("segments/a".utf8))
        for index in sealed.indices {
            var altered = sealed
            altered[index] ^= 0x80
            #expect(throws: CryptoError.authenticationFailed) {
                try ChaCha20Poly1305.open(altered, key: key, nonce: nonce, associatedData: Array("segments/a".utf8))
            }
        }
        // Bound to its object's name: the same bytes under another name do not open.
        #expect(throws: CryptoError.authenticationFailed) {
            try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: Array("segments/b".utf8))
        }
        #expect(throws: CryptoError.authenticationFailed) { try ChaCha20Poly1305.open(Array(sealed.prefix(15)), key: key, nonce: nonce) }
        #expect(throws: CryptoError.self) { try ChaCha20Poly1305.seal([], key: key, nonce: Array(nonce.prefix(16))) }
    }

    /// 1,000 random round trips, of every length up to 300 bytes and beyond: the same sealed
    /// bytes as Python's `cryptography` (ChaCha20-Poly1305, and XChaCha20 through a Python
    /// HChaCha20 in front of it), and each opens the other's; with every way of making the
    /// keystream this processor runs.
    @Test func agreesWithPythonCryptography() throws {
        guard let python = try PythonCryptography.availableOrSkip() else { return }
        var random = SeededRandom(seed: SeededRandom.environmentNumber("FERRY_SEED", default: 8439))
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
        let cases = (0..<1000).map { index in
            (key: bytes(32), nonce: bytes(index % 2 == 0 ? 12 : 24), aad: bytes(index % 37), message: bytes(index < 900 ? index % 300 : 4096 + index))
        }
        let script = """
            import sys, struct
            from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
            def rotl(v, c): return ((v << c) & 0xffffffff) | (v >> (32 - c))
            def qr(s, a, b, c, d):
                s[a] = (s[a] + s[b]) & 0xffffffff; s[d] = rotl(s[d] ^ s[a], 16)
                s[c] = (s[c] + s[d]) & 0xffffffff; s[b] = rotl(s[b] ^ s[c], 12)
                s[a] = (s[a] + s[b]) & 0xffffffff; s[d] = rotl(s[d] ^ s[a], 8)
                s[c] = (s[c] + s[d]) & 0xffffffff; s[b] = rotl(s[b] ^ s[c], 7)
            def hchacha20(key, nonce):
                s = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574] + list(struct.unpack('<8I', key)) + list(struct.unpack('<4I', nonce))
                for _ in range(10):
                    qr(s, 0, 4, 8, 12); qr(s, 1, 5, 9, 13); qr(s, 2, 6, 10, 14); qr(s, 3, 7, 11, 15)
                    qr(s, 0, 5, 10, 15); qr(s, 1, 6, 11, 12); qr(s, 2, 7, 8, 13); qr(s, 3, 4, 9, 14)
                return struct.pack('<8I', *(s[0:4] + s[12:16]))
            for line in sys.stdin:
                key, nonce, aad, message = (bytes.fromhex(f[1:]) for f in line.split())
                if len(nonce) == 24:
                    key, nonce = hchacha20(key, nonce[:16]), b'\\0\\0\\0\\0' + nonce[16:]
                print(ChaCha20Poly1305(key).encrypt(nonce, message, aad).hex())
            """
        let input = cases.map { "k\(HexBytes.encode($0.key)) n\(HexBytes.encode($0.nonce)) a\(HexBytes.encode($0.aad)) m\(HexBytes.encode($0.message))\n" }.joined()
        let lines = try PythonCryptography.run(script: script, input: input, with: python).split(separator: "\n", omittingEmptySubsequences: false)
        try #require(lines.count >= cases.count)
        for (test, line) in zip(cases, lines) {
            let theirs = try #require(HexBytes.decode(String(line)))
            for implementation in ChaCha20ImplementationTests.implementations {
                let label = Comment(rawValue: "\(test.message.count) bytes, nonce of \(test.nonce.count), \(implementation)")
                let sealed = try ChaCha20Poly1305.seal(test.message, key: test.key, nonce: test.nonce, associatedData: test.aad, using: implementation)
                #expect(HexBytes.encode(sealed) == String(line), label)
                #expect(try ChaCha20Poly1305.open(theirs, key: test.key, nonce: test.nonce, associatedData: test.aad, using: implementation) == test.message, label)
            }
        }
    }
}
