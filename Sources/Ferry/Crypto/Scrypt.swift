/// The scrypt key derivation function (RFC 7914): a key from a passphrase, made costly in
/// memory and time so that guessing passphrases is too.
///
/// ```swift
/// let key = try Scrypt.derive(passphrase: Array("correct horse".utf8), salt: salt,
///                             parameters: .init(cost: 1 << 17, blockSize: 8, parallelism: 1), length: 32)
/// ```
///
/// ROMix reads its table at positions that depend on the passphrase; that is scrypt's design
/// (it is what makes it memory-hard), and the one place in Ferry's crypto where a secret
/// chooses a memory address.
package enum Scrypt {
    /// N, r and p of RFC 7914, stored beside what they protect so that they can change.
    package struct Parameters: Sendable, Equatable, Codable {
        /// N: the CPU and memory cost, a power of two above 1.
        package var cost: Int
        /// r: the block size (128·r bytes per block).
        package var blockSize: Int
        /// p: how many independent mixes.
        package var parallelism: Int

        package init(cost: Int, blockSize: Int, parallelism: Int) {
            self.cost = cost
            self.blockSize = blockSize
            self.parallelism = parallelism
        }

        /// N = 2^17, r = 8, p = 1: 128 MiB and about half a second here, the cost
        /// libsodium and age use for an interactive passphrase.
        package static let interactive = Parameters(cost: 1 << 17, blockSize: 8, parallelism: 1)

        /// The memory ROMix takes: 128 · r · N bytes.
        package var memoryByteCount: Int { 128 * blockSize * cost }
    }

    /// The largest cost accepted from stored parameters (1 GiB at r = 8), so that a hub cannot
    /// make a replica allocate without bound.
    package static let maximumMemoryByteCount = 1 << 30

    /// `length` bytes derived from `passphrase` and `salt`.
    package static func derive(passphrase: [UInt8], salt: [UInt8], parameters: Parameters, length: Int) throws(CryptoError) -> [UInt8] {
        let (n, r, p) = (parameters.cost, parameters.blockSize, parameters.parallelism)
        guard n > 1, n & (n - 1) == 0 else { throw .invalidParameters("scrypt's cost N must be a power of two above 1, not \(n)") }
        guard r >= 1, p >= 1, r <= 1 << 12, p <= 1 << 12, length >= 1, length <= 1 << 20 else {
            throw .invalidParameters("scrypt parameters out of range (r \(r), p \(p), length \(length))")
        }
        guard n <= maximumMemoryByteCount / (128 * r) else {
            throw .invalidParameters("scrypt parameters ask for more than \(maximumMemoryByteCount >> 20) MiB (N \(n), r \(r))")
        }
        let blockBytes = 128 * r
        var blocks = PBKDF2.derive(password: passphrase, salt: salt, iterations: 1, length: p * blockBytes)
        for index in 0..<p {
            var block = Array(blocks[(index * blockBytes)..<((index + 1) * blockBytes)])
            roMix(&block, r: r, n: n)
            blocks.replaceSubrange((index * blockBytes)..<((index + 1) * blockBytes), with: block)
        }
        return PBKDF2.derive(password: passphrase, salt: blocks, iterations: 1, length: length)
    }

    /// ROMix (RFC 7914 section 5) on one block of 128·r bytes.
    static func roMix(_ block: inout [UInt8], r: Int, n: Int) {
        let wordsPerBlock = 32 * r
        var x = (0..<wordsPerBlock).map { index in
            (0..<4).reduce(UInt32(0)) { word, byte in word | UInt32(block[4 * index + byte]) << UInt32(8 * byte) }
        }
        var table = [UInt32](repeating: 0, count: wordsPerBlock * n)
        var scratch = [UInt32](repeating: 0, count: wordsPerBlock)
        for index in 0..<n {
            table.replaceSubrange((index * wordsPerBlock)..<((index + 1) * wordsPerBlock), with: x)
            blockMix(&x, scratch: &scratch, r: r)
        }
        for _ in 0..<n {
            // Integerify: the first word of the last 64-byte block, modulo N.
            let j = Int(x[(2 * r - 1) * 16]) & (n - 1)
            for index in 0..<wordsPerBlock { x[index] ^= table[j * wordsPerBlock + index] }
            blockMix(&x, scratch: &scratch, r: r)
        }
        block = x.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(8 * $0)) } }
    }

    /// BlockMix with Salsa20/8 (RFC 7914 section 4): even outputs first, then odd ones.
    private static func blockMix(_ b: inout [UInt32], scratch: inout [UInt32], r: Int) {
        var x = Array(b[((2 * r - 1) * 16)..<(2 * r * 16)])
        for index in 0..<(2 * r) {
            for word in 0..<16 { x[word] ^= b[index * 16 + word] }
            salsa20_8(&x)
            let destination = (index % 2 == 0 ? index / 2 : r + index / 2) * 16
            for word in 0..<16 { scratch[destination + word] = x[word] }
        }
        swap(&b, &scratch)
    }

    /// The Salsa20/8 core (RFC 7914 section 3), in place on 16 words.
    static func salsa20_8(_ b: inout [UInt32]) {
        var x = b
        @inline(__always) func r(_ value: UInt32, _ count: UInt32) -> UInt32 { value << count | value >> (32 - count) }
        for _ in 0..<4 {
            x[4] ^= r(x[0] &+ x[12], 7); x[8] ^= r(x[4] &+ x[0], 9)
            x[12] ^= r(x[8] &+ x[4], 13); x[0] ^= r(x[12] &+ x[8], 18)
            x[9] ^= r(x[5] &+ x[1], 7); x[13] ^= r(x[9] &+ x[5], 9)
            x[1] ^= r(x[13] &+ x[9], 13); x[5] ^= r(x[1] &+ x[13], 18)
            x[14] ^= r(x[10] &+ x[6], 7); x[2] ^= r(x[14] &+ x[10], 9)
            x[6] ^= r(x[2] &+ x[14], 13); x[10] ^= r(x[6] &+ x[2], 18)
            x[3] ^= r(x[15] &+ x[11], 7); x[7] ^= r(x[3] &+ x[15], 9)
            x[11] ^= r(x[7] &+ x[3], 13); x[15] ^= r(x[11] &+ x[7], 18)
            x[1] ^= r(x[0] &+ x[3], 7); x[2] ^= r(x[1] &+ x[0], 9)
            x[3] ^= r(x[2] &+ x[1], 13); x[0] ^= r(x[3] &+ x[2], 18)
            x[6] ^= r(x[5] &+ x[4], 7); x[7] ^= r(x[6] &+ x[5], 9)
            x[4] ^= r(x[7] &+ x[6], 13); x[5] ^= r(x[4] &+ x[7], 18)
            x[11] ^= r(x[10] &+ x[9], 7); x[8] ^= r(x[11] &+ x[10], 9)
            x[9] ^= r(x[8] &+ x[11], 13); x[10] ^= r(x[9] &+ x[8], 18)
            x[12] ^= r(x[15] &+ x[14], 7); x[13] ^= r(x[12] &+ x[15], 9)
            x[14] ^= r(x[13] &+ x[12], 13); x[15] ^= r(x[14] &+ x[13], 18)
        }
        for index in 0..<16 { b[index] &+= x[index] }
    }
}
