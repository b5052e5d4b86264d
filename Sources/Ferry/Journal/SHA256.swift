internal import CFerrySHA

/// An incremental SHA-256 hasher (FIPS 180-4), used to chain and check journal entries.
///
/// Feed bytes in any number of ``update(_:)-(UnsafeRawBufferPointer)`` calls, then call
/// ``finalize()`` once; the one-shot ``hash(_:)-([UInt8])`` does both.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(Array("ab".utf8))
/// hasher.update(Array("c".utf8))
/// let digest = hasher.finalize()
/// // digest.hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// ```
///
/// The hasher is a value of about a hundred bytes with no heap storage; full 64-byte blocks are
/// compressed straight from the caller's buffer.
public struct SHA256: Sendable {
    /// The eight 32-bit words of the running hash value.
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    /// Bytes of an incomplete block, waiting for more input: 64 bytes of storage.
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    /// How many bytes of `pending` are in use (0..<64).
    private var pendingCount: Int
    /// Total bytes fed so far, for the length field of the padding.
    private var totalByteCount: UInt64
    /// Whether blocks go through the processor's SHA instructions (see ``hardwareAvailable``).
    private let usesHardware: Bool

    /// Whether this processor has SHA-256 instructions (x86 SHA extensions), which hash
    /// several times faster than the portable rounds below; checked once per process.
    static let hardwareAvailable = ferry_sha256_hardware_available() == 1

    /// Whether hashing here uses the processor's SHA-256 instructions rather than portable
    /// Swift rounds (for benchmarks and diagnostics).
    public static var usesProcessorInstructions: Bool { hardwareAvailable }

    private static let initialState: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )

    /// The size of one compression block in bytes.
    static let blockByteCount = 64

    /// Creates a hasher with nothing hashed yet.
    public init() {
        self.init(hardware: Self.hardwareAvailable)
    }

    /// A hasher that uses the processor's SHA instructions or not (tests check both paths;
    /// asking for hardware that is not there gets the portable rounds).
    init(hardware: Bool) {
        state = Self.initialState
        pending = (0, 0, 0, 0, 0, 0, 0, 0)
        pendingCount = 0
        totalByteCount = 0
        usesHardware = hardware && Self.hardwareAvailable
    }

    /// Hashes more bytes.
    ///
    /// - Parameter bytes: The next bytes of the message; may be empty.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        var input = base
        var remaining = bytes.count
        totalByteCount &+= UInt64(remaining)

        if pendingCount > 0 {
            let taken = min(Self.blockByteCount - pendingCount, remaining)
            let offset = pendingCount
            withUnsafeMutableBytes(of: &pending) { buffer in
                // `buffer` is 64 bytes, so its base address exists.
                guard let destination = buffer.baseAddress else { return }
                (destination + offset).copyMemory(from: input, byteCount: taken)
            }
            pendingCount += taken
            input += taken
            remaining -= taken
            guard pendingCount == Self.blockByteCount else { return }
            let block = pending
            withUnsafeBytes(of: block) { buffer in
                if let blockBase = buffer.baseAddress { Self.compress(&state, blocks: blockBase, count: 1, hardware: usesHardware) }
            }
            pendingCount = 0
        }

        let fullBlocks = remaining / Self.blockByteCount
        if fullBlocks > 0 {
            Self.compress(&state, blocks: input, count: fullBlocks, hardware: usesHardware)
            input += fullBlocks * Self.blockByteCount
            remaining -= fullBlocks * Self.blockByteCount
        }

        if remaining > 0 {
            withUnsafeMutableBytes(of: &pending) { buffer in
                guard let destination = buffer.baseAddress else { return }
                destination.copyMemory(from: input, byteCount: remaining)
            }
            pendingCount = remaining
        }
    }

    /// Hashes the bytes of an array.
    ///
    /// - Parameter bytes: The next bytes of the message; may be empty.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Pads the message, returns its digest and resets the hasher to its initial state, so the
    /// same value can hash another message.
    ///
    /// - Returns: The SHA-256 digest of every byte passed to `update` since the last reset.
    public mutating func finalize() -> SHA256Digest {
        let bitLength = totalByteCount &* 8
        // Padding: 0x80, zeros up to 56 mod 64, then the 64-bit big-endian bit length.
        var tail: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                   UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let tailCount = pendingCount < 56 ? 64 : 128
        let used = pendingCount
        let block = pending
        withUnsafeMutableBytes(of: &tail) { buffer in
            withUnsafeBytes(of: block) { pendingBytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: pendingBytes[0..<used]))
            }
            buffer[used] = 0x80
            buffer.storeBytes(of: bitLength.bigEndian, toByteOffset: tailCount - 8, as: UInt64.self)
            if let base = buffer.baseAddress {
                Self.compress(&state, blocks: base, count: tailCount / Self.blockByteCount, hardware: usesHardware)
            }
        }
        let (h0, h1, h2, h3, h4, h5, h6, h7) = state
        let digest = SHA256Digest(
            UInt64(h0) << 32 | UInt64(h1), UInt64(h2) << 32 | UInt64(h3),
            UInt64(h4) << 32 | UInt64(h5), UInt64(h6) << 32 | UInt64(h7))
        self = SHA256(hardware: usesHardware)
        return digest
    }

    /// The digest of a whole message.
    ///
    /// ```swift
    /// SHA256.hash(Array("abc".utf8)).hex  // "ba7816bf…f20015ad"
    /// ```
    /// - Parameter bytes: The message.
    /// - Returns: Its SHA-256 digest.
    public static func hash(_ bytes: [UInt8]) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The digest of a whole message in memory.
    ///
    /// - Parameter bytes: The message.
    /// - Returns: Its SHA-256 digest.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }
}

// MARK: - Compression

extension SHA256 {
    /// Compresses `count` consecutive 64-byte blocks starting at `blocks` into `state`.
    ///
    /// The message schedule is a 16-word ring kept in a stack allocation, made once per call.
    @inline(__always)
    private static func compress(
        _ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32),
        blocks: UnsafeRawPointer, count: Int, hardware: Bool
    ) {
        if hardware {
            // A tuple of eight UInt32 is laid out as a C array of eight.
            withUnsafeMutableBytes(of: &state) { words in
                guard let base = words.baseAddress else { return }
                ferry_sha256_compress_hardware(
                    base.assumingMemoryBound(to: UInt32.self), blocks.assumingMemoryBound(to: UInt8.self), count)
            }
            return
        }
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { schedule in
            guard let w = schedule.baseAddress else { return }
            withUnsafeBytes(of: ferry_sha256_round_constants) { constantBytes in
                let k = constantBytes.bindMemory(to: UInt32.self)
                var (h0, h1, h2, h3, h4, h5, h6, h7) = state
                var block = blocks
                for _ in 0..<count {
                    var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
                    for t in 0..<16 {
                        let word = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
                        w[t] = word
                        round(&a, &b, &c, &d, &e, &f, &g, &h, k[t] &+ word)
                    }
                    for t in 16..<64 {
                        let w15 = w[(t &- 15) & 15], w2 = w[(t &- 2) & 15]
                        let s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >> 3)
                        let s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >> 10)
                        let word = w[t & 15] &+ s0 &+ w[(t &- 7) & 15] &+ s1
                        w[t & 15] = word
                        round(&a, &b, &c, &d, &e, &f, &g, &h, k[t] &+ word)
                    }
                    h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d
                    h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= h
                    block += blockByteCount
                }
                state = (h0, h1, h2, h3, h4, h5, h6, h7)
            }
        }
    }

    /// One of the 64 rounds; `kw` is the round constant plus the schedule word.
    @inline(__always)
    private static func round(
        _ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32,
        _ e: inout UInt32, _ f: inout UInt32, _ g: inout UInt32, _ h: inout UInt32, _ kw: UInt32
    ) {
        let sigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
        let choose = (e & f) ^ (~e & g)
        let t1 = h &+ sigma1 &+ choose &+ kw
        let sigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
        let majority = (a & b) ^ (a & c) ^ (b & c)
        let t2 = sigma0 &+ majority
        h = g; g = f; f = e; e = d &+ t1
        d = c; c = b; b = a; a = t1 &+ t2
    }

    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 {
        (x >> n) | (x << (32 &- n))
    }
}

