/// A fingerprint of a JSON document's canonical bytes, to tell within one process whether a
/// record file holds the document the journal expects: the length and a seeded SipHash
/// (Swift's `Hasher`), much cheaper than SHA-256. The seed is random per process, so a file
/// cannot be crafted to collide with an expected one.
///
/// Ferry writes a record file in the pretty form of canonical JSON, which is the canonical
/// bytes with whitespace added next to the structural characters (`{ } [ ] , :`). Taking that
/// whitespace out of a file gives back the canonical bytes, so the expected fingerprint comes
/// from the journal line's bytes without serializing the document again.
struct FileFingerprint: Sendable, Hashable {
    let count: Int
    let hash: Int

    /// A fingerprint kept in parts (see ``ReplayTable``).
    init(count: Int, hash: Int) {
        self.count = count
        self.hash = hash
    }

    /// The fingerprint of `bytes` as they are (a document's canonical bytes).
    init(_ bytes: UnsafeRawBufferPointer) {
        var hasher = Hasher()
        hasher.combine(bytes: bytes)
        count = bytes.count
        hash = hasher.finalize()
    }

    /// The fingerprint of a file's bytes without the whitespace between JSON tokens; `nil` when
    /// whitespace stands where no pretty form puts it (between two tokens neither of which is
    /// structural, where taking it out could join them). Whitespace inside strings is kept.
    init?(compacting file: [UInt8]) {
        var joinsTokens = false
        let compacted = file.withUnsafeBufferPointer { file in
            [UInt8](unsafeUninitializedCapacity: file.count) { compact, written in
                if let count = Self.compact(file, into: compact) { written = count } else { joinsTokens = true }
            }
        }
        guard !joinsTokens else { return nil }
        self = compacted.withUnsafeBytes { FileFingerprint($0) }
    }

    /// Copies `file` into `compact` without the whitespace between tokens; the count written,
    /// or `nil` (see ``init(compacting:)``).
    private static func compact(_ file: UnsafeBufferPointer<UInt8>, into compact: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        var written = 0
        var inString = false
        var escaped = false
        var index = 0
        while index < file.count {
            let byte = file[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                compact[written] = byte
                written += 1
                index += 1
                continue
            }
            guard isWhitespace(byte) else {
                if byte == UInt8(ascii: "\"") { inString = true }
                compact[written] = byte
                written += 1
                index += 1
                continue
            }
            var end = index + 1
            while end < file.count, isWhitespace(file[end]) { end += 1 }
            let before = written > 0 ? compact[written - 1] : nil
            let after = end < file.count ? file[end] : nil
            guard before.map(isStructural) ?? true || after.map(isStructural) ?? true else { return nil }
            index = end
        }
        return inString ? nil : written
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    private static func isStructural(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ":"): return true
        default: return false
        }
    }
}
