/// One file of the journal: `journal/<first seq, 20 digits>.jsonl`, JSON Lines.
struct JournalSegment: Sendable, Hashable {
    /// The sequence number of the segment's first entry.
    let firstSequence: UInt64
    /// The file's name, such as `00000000000000000001.jsonl`.
    let name: String

    init(firstSequence: UInt64) {
        self.firstSequence = firstSequence
        let digits = String(firstSequence)
        name = String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".jsonl"
    }

    /// Reads a segment's first sequence from its file name; `nil` for any other file.
    init?(fileName: String) {
        guard fileName.hasSuffix(".jsonl") else { return nil }
        let stem = fileName.utf8.dropLast(6)
        guard stem.count == 20, stem.allSatisfy({ $0.isASCIIDigit }),
            let sequence = UInt64(String(decoding: stem, as: UTF8.self)), sequence > 0
        else { return nil }
        self.init(firstSequence: sequence)
    }
}
