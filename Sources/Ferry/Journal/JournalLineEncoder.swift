/// Writes a journal entry as one canonical JSON line and hashes it, without building the
/// object twice.
///
/// The line is the canonical form (keys sorted by code point, no whitespace) of
/// `{"batch","counter","digest","doc","entity","hash","hlc","id","more","op","origin","parent","prev","pseq","seq","sig","vv"}`
/// (`batch` and `more` only for entries of a batch of several; `digest` and `parent`, the
/// change's ``ChangeChain``, for every entry written since changes carry digests; `sig`, its
/// ``ChangeSeal``, on the changes their origin signed);
/// the hash is SHA-256 of the same canonical object without `"hash"`. Splicing the hash in
/// between the parts before and after it gives exactly the canonical line, because `hash`
/// sorts between `entity` and `hlc`.
struct JournalLineEncoder {
    private var head: [UInt8] = []
    private var tail: [UInt8] = []

    mutating func encode(
        sequence: UInt64, change: Change, previousSequenceOfRecord: UInt64, previousHash: SHA256Digest,
        batch: BatchPosition?, canonicalDocument: [UInt8]? = nil
    ) -> (hash: SHA256Digest, line: [UInt8]) {
        var line: [UInt8] = []
        let hash = encode(
            sequence: sequence, change: change, previousSequenceOfRecord: previousSequenceOfRecord, previousHash: previousHash,
            batch: batch, canonicalDocument: canonicalDocument, appendingTo: &line)
        return (hash, line)
    }

    /// Appends the entry's line (with its newline) to `output` and returns the entry's hash:
    /// for a caller that gathers many lines in one buffer.
    mutating func encode(
        sequence: UInt64, change: Change, previousSequenceOfRecord: UInt64, previousHash: SHA256Digest,
        batch: BatchPosition?, canonicalDocument: [UInt8]? = nil, appendingTo line: inout [UInt8]
    ) -> SHA256Digest {
        head.removeAll(keepingCapacity: true)
        tail.removeAll(keepingCapacity: true)
        if let batch {
            head.append(contentsOf: #"{"batch":"#.utf8)
            head.appendDecimal(batch.first)
            head.append(contentsOf: #","counter":"#.utf8)
        } else {
            head.append(contentsOf: #"{"counter":"#.utf8)
        }
        head.appendDecimal(change.counter)
        if let chain = change.chain {
            head.append(contentsOf: #","digest":""#.utf8)
            chain.digest.appendHexDigits(to: &head)
            head.append(UInt8(ascii: "\""))
        }
        if let document = change.operation.document {
            head.append(contentsOf: #","doc":"#.utf8)
            if let canonicalDocument { head.append(contentsOf: canonicalDocument) } else { document.writeCanonical(to: &head) }
        }
        head.append(contentsOf: #","entity":"#.utf8)
        JSONValue.string(change.key.entity.rawValue).writeCanonical(to: &head)
        head.append(UInt8(ascii: ","))

        tail.append(contentsOf: #""hlc":""#.utf8)
        tail.appendDecimal(change.timestamp.physical)
        tail.append(UInt8(ascii: "."))
        tail.appendDecimal(UInt64(change.timestamp.logical))
        tail.append(contentsOf: #"","id":"#.utf8)
        JSONValue.string(change.key.id.rawValue).writeCanonical(to: &tail)
        if let batch {
            tail.append(contentsOf: #","more":"#.utf8)
            tail.appendDecimal(batch.remaining)
        }
        tail.append(contentsOf: #","op":""#.utf8)
        tail.append(contentsOf: change.operation.name.utf8)
        tail.append(contentsOf: #"","origin":""#.utf8)
        tail.append(contentsOf: change.origin.rawValue.utf8)
        if let chain = change.chain {
            tail.append(contentsOf: #"","parent":""#.utf8)
            chain.parent.appendHexDigits(to: &tail)
        }
        tail.append(contentsOf: #"","prev":""#.utf8)
        previousHash.appendHexDigits(to: &tail)
        tail.append(contentsOf: #"","pseq":"#.utf8)
        tail.appendDecimal(previousSequenceOfRecord)
        tail.append(contentsOf: #","seq":"#.utf8)
        tail.appendDecimal(sequence)
        if let seal = change.chain?.seal {
            tail.append(contentsOf: #","sig":""#.utf8)
            tail.append(contentsOf: seal.textBytes)
            tail.append(UInt8(ascii: "\""))
        }
        tail.append(contentsOf: #","vv":"#.utf8)
        change.version.writeCanonical(to: &tail)
        tail.append(UInt8(ascii: "}"))

        var hasher = SHA256()
        hasher.update(head)
        hasher.update(tail)
        let hash = hasher.finalize()

        line.reserveCapacity(line.count + head.count + tail.count + 80)
        line.append(contentsOf: head)
        line.append(contentsOf: #""hash":""#.utf8)
        hash.appendHexDigits(to: &line)
        line.append(contentsOf: #"","#.utf8)
        line.append(contentsOf: tail)
        line.append(UInt8(ascii: "\n"))
        return hash
    }
}
