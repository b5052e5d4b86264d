/// What `ferry verify` learns of signatures from a journal, read once in order: for each
/// origin, its last change and its last signed one. Checked at the end with one signature an
/// origin, as a receiver does (see ``SealCheck``): the last change of every origin that signs
/// must be signed by its key, and the signature must check.
struct SignatureLedger: Sendable {
    private struct Seen: Sendable {
        var counter: UInt64
        var digest: SHA256Digest
        var seal: ChangeSeal?
        var sequence: UInt64
    }

    private var last: [ReplicaID: Seen] = [:]
    private var lastSigned: [ReplicaID: Seen] = [:]
    private var counts: [ReplicaID: Int] = [:]

    /// Notes one entry (entries come in journal order).
    mutating func add(_ entry: JournalEntry) {
        let change = entry.change
        let seen = Seen(counter: change.counter, digest: change.digest, seal: change.chain?.seal, sequence: entry.sequence)
        if change.counter >= last[change.origin]?.counter ?? 0 { last[change.origin] = seen }
        if seen.seal != nil, change.counter >= lastSigned[change.origin]?.counter ?? 0 { lastSigned[change.origin] = seen }
        counts[change.origin, default: 0] += 1
    }

    /// The changes of replicas that never signed (all made before changes were signed, or by
    /// a peer that does not sign, such as a backend's stand-in): whose work cannot be proven.
    func unsignedChanges(book: ReplicaKeyBook) -> [ReplicaID: Int] {
        var result: [ReplicaID: Int] = [:]
        for (origin, count) in counts where !origin.isKeyDerived && book[origin] == nil && lastSigned[origin] == nil {
            result[origin] = count
        }
        return result
    }

    /// A finding for every origin that signs whose last change here is not covered by a
    /// signature of its key that checks.
    /// - Parameter location: the journal file and line of an entry, by sequence.
    func findings(book: ReplicaKeyBook, location: (UInt64) -> (path: String, line: Int?)) -> [VerificationFinding] {
        var findings: [VerificationFinding] = []
        for (origin, seen) in last.sorted(by: { $0.key < $1.key }) {
            guard origin.isKeyDerived || book[origin] != nil || lastSigned[origin] != nil else { continue }
            let place = location(seen.sequence)
            func finding(_ message: String) -> VerificationFinding {
                VerificationFinding(
                    kind: .unsignedWork, path: place.path, line: place.line,
                    message: "change \(seen.counter) of replica \(origin) \(message): someone without its key wrote it, or it was altered")
            }
            guard let seal = seen.seal else {
                let through = lastSigned[origin].map { "; its signed work ends at change \($0.counter)" } ?? ""
                findings.append(finding("is its last here and carries no signature\(through)"))
                continue
            }
            if origin.isKeyDerived, !origin.isDerived(from: seal.signer) {
                findings.append(finding("is signed by key \(seal.signer.short)…, not the key its replica id is made from"))
            } else if !origin.isKeyDerived, let held = book[origin], held != seal.signer {
                findings.append(finding("is signed by key \(seal.signer.short)…, not by \(held.short)…, the key held for that replica"))
            } else if !seal.isValid(for: seen.digest) {
                findings.append(finding("carries a signature that does not check"))
            }
        }
        return findings
    }
}
