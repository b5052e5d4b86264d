import Testing
import FerryTestSupport
@testable import Ferry

@Suite struct ScryptTests {
    /// RFC 7914 section 12's first three vectors (the fourth, N = 2^20, takes a GiB and is left
    /// to the cross-check's range).
    @Test(arguments: [
        ("", "", 16, 1, 1,
         "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"),
        ("password", "NaCl", 1024, 8, 16,
         "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"),
        ("pleaseletmein", "SodiumChloride", 16384, 8, 1,
         "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"),
    ])
    func rfc7914Vector(passphrase: String, salt: String, n: Int, r: Int, p: Int, expected: String) throws {
        let key = try Scrypt.derive(
            passphrase: Array(passphrase.utf8), salt: Array(salt.utf8), parameters: .init(cost: n, blockSize: r, parallelism: p), length: 64)
        #expect(HexBytes.encode(key) == expected)
    }

    /// RFC 7914 section 11: PBKDF2-HMAC-SHA-256 alone (the first vector; the second, of 80,000
    /// iterations, takes 16 s in a debug build: random iteration counts are checked against
    /// hashlib below instead).
    @Test func rfc7914Pbkdf2() {
        #expect(HexBytes.encode(PBKDF2.derive(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64))
            == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
    }

    @Test func parametersOutOfRangeAreRefused() {
        let salt = [UInt8](repeating: 1, count: 16)
        #expect(throws: CryptoError.self) { try Scrypt.derive(passphrase: [], salt: salt, parameters: .init(cost: 1000, blockSize: 8, parallelism: 1), length: 32) }
        #expect(throws: CryptoError.self) { try Scrypt.derive(passphrase: [], salt: salt, parameters: .init(cost: 1 << 30, blockSize: 8, parallelism: 1), length: 32) }
        #expect(throws: CryptoError.self) { try Scrypt.derive(passphrase: [], salt: salt, parameters: .init(cost: 16, blockSize: 0, parallelism: 1), length: 32) }
    }

    /// Random passphrases, salts and small parameters against Python's `hashlib.scrypt` and
    /// `hashlib.pbkdf2_hmac` (OpenSSL's), which every Python has.
    @Test func agreesWithPythonHashlib() throws {
        guard let python = ["/usr/bin/python3"].first(where: { FileSystem.exists($0) }) ?? PythonCryptography.interpreter else {
            Issue.record("no python3 to cross-check scrypt with")
            return
        }
        var random = SeededRandom(seed: 7914)
        let cases = (0..<40).map { index in
            (passphrase: (0..<(index % 20)).map { _ in UInt8.random(in: 0...255, using: &random) },
             salt: (0..<(index % 33)).map { _ in UInt8.random(in: 0...255, using: &random) },
             n: 1 << (1 + index % 8), r: 1 + index % 4, p: 1 + index % 3, length: 1 + index * 3)
        }
        let script = """
            import hashlib, sys
            for line in sys.stdin:
                p, s, n, r, q, length = line.split()
                password, salt = bytes.fromhex(p[1:]), bytes.fromhex(s[1:])
                print(hashlib.scrypt(password, salt=salt, n=int(n), r=int(r), p=int(q), dklen=int(length)).hex(),
                      hashlib.pbkdf2_hmac('sha256', password, salt, int(n), int(length)).hex())
            """
        let input = cases.map { "p\(HexBytes.encode($0.passphrase)) s\(HexBytes.encode($0.salt)) \($0.n) \($0.r) \($0.p) \($0.length)\n" }.joined()
        let lines = try PythonCryptography.run(script: script, input: input, with: python).split(separator: "\n")
        try #require(lines.count == cases.count)
        for (test, line) in zip(cases, lines) {
            let expected = line.split(separator: " ").map(String.init)
            let key = try Scrypt.derive(passphrase: test.passphrase, salt: test.salt,
                                        parameters: .init(cost: test.n, blockSize: test.r, parallelism: test.p), length: test.length)
            #expect(HexBytes.encode(key) == expected.first)
            // PBKDF2 alone, with N as the iteration count.
            let derived = PBKDF2.derive(password: test.passphrase, salt: test.salt, iterations: test.n, length: test.length)
            #expect(HexBytes.encode(derived) == expected.last)
        }
    }
}
