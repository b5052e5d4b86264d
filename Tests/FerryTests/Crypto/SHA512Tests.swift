import Testing
import FerryTestSupport
@testable import Ferry

@Suite struct SHA512Tests {
    /// FIPS 180-4's examples (NIST "Example Algorithms", SHA-512).
    static let vectors: [(message: String, digest: String)] = [
        ("", "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        ("abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
    ]

    @Test(arguments: 0..<3) func fipsExample(index: Int) {
        let (message, expected) = Self.vectors[index]
        #expect(HexBytes.encode(SHA512.hash(Array(message.utf8))) == expected)
    }

    @Test func oneMillionAInUnevenPieces() {
        let expected = "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(HexBytes.encode(SHA512.hash(message)) == expected)
        var hasher = SHA512()
        var offset = 0
        var piece = 1
        while offset < message.count {
            let end = min(offset + piece, message.count)
            hasher.update(message[offset..<end])
            offset = end
            piece = piece % 300 + 7
        }
        #expect(HexBytes.encode(hasher.finalize()) == expected)
    }

    /// Every length around the padding boundaries (111, 112 and 128 bytes), against Python's hashlib.
    @Test func lengthsAroundThePaddingBoundaryMatchHashlib() throws {
        // hashlib is in every Python; this needs no test tools.
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: { FileSystem.exists($0) })
            ?? PythonCryptography.interpreter
        else {
            Issue.record("no python3 to cross-check SHA-512 with")
            return
        }
        let script = """
            import hashlib, sys
            for line in sys.stdin:
                print(hashlib.sha512(bytes.fromhex(line.strip())).hexdigest())
            """
        var random = SeededRandom(seed: 512)
        let messages = (0..<300).map { length in (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) } }
        let output = try PythonCryptography.run(
            script: script, input: messages.map { HexBytes.encode($0) + "\n" }.joined(), with: python)
        let expected = output.split(separator: "\n").map(String.init)
        #expect(expected.count == messages.count)
        for (message, digest) in zip(messages, expected) {
            #expect(HexBytes.encode(SHA512.hash(message)) == digest, Comment(rawValue: "length \(message.count)"))
        }
    }
}
