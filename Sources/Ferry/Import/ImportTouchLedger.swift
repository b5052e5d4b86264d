/// Proves, part by part, that a streamed import's parts do not depend on each other, so that
/// writing them one after another gives what the one-batch import of the whole input gives.
///
/// Each part (a batch of items, then the deletes) is planned against the store as it was before
/// the import. That plan is the one the part makes when it is written after the parts before it
/// exactly when none of those wrote a record it reads or writes: the ledger keeps, for every
/// record any part touched, which part wrote it and which read it, and finds the first record
/// written by one part and read or written by another. A part that reads every record of an
/// entity (the one-batch import's prefetch) depends on everything, and is refused too. The
/// children of a derived to-many (``BackLinkIndex``) count as one thing per parent: a part that
/// reads a parent's children depends on any other that gives a record to that parent or takes one
/// from it.
///
/// Each is kept as a 128-bit fingerprint with a few bytes of bookkeeping: about 40 bytes a
/// record, whatever its documents hold. Two keys with the same fingerprint can only
/// make the ledger see a dependency where there is none, never miss one.
struct ImportTouchLedger {
    /// What a part touches: a record, or the children of one parent through a derived to-many.
    enum Touched: Hashable, CustomStringConvertible {
        case record(RecordKey)
        case backLinks(BackLinkIndex.Bucket)

        /// Whether ``description`` names several records.
        var isPlural: Bool {
            if case .backLinks = self { return true }
            return false
        }

        var description: String {
            switch self {
            case .record(let key): return key.description
            case .backLinks(let bucket): return "the \(bucket.entity.rawValue) records whose \(bucket.member) is \(bucket.parent.rawValue)"
            }
        }
    }

    /// Two independent 64-bit hashes of what was touched.
    struct Fingerprint: Hashable {
        var first: UInt64
        var second: UInt64

        init(_ touched: Touched) {
            var a = Hasher()
            a.combine(0 as UInt8)
            a.combine(touched)
            var b = Hasher()
            b.combine(1 as UInt8)
            b.combine(touched)
            first = UInt64(bitPattern: Int64(a.finalize()))
            second = UInt64(bitPattern: Int64(b.finalize()))
        }
    }

    /// What the parts did to one record.
    struct Entry {
        /// The part that wrote it, -1 for none, or -2 for more than one (the children of a
        /// parent only: a record written by two parts is a dependency).
        var writer: Int32 = -1
        /// The part that read it, -1 for none, or -2 for more than one.
        var reader: Int32 = -1
        /// Whether a part has counted it unchanged.
        var countedUnchanged = false
    }

    private var entries: [Fingerprint: Entry] = [:]
    /// What each part is, for the reason given: "the items from 8192", "the deletes".
    private var partNames: [String] = []

    /// What ``add(_:named:)`` found.
    struct Outcome {
        /// Why the part depends on another, when it does.
        var dependency: String?
        /// The records the part counted unchanged that an earlier part counted already.
        var countedAgain: [RecordKey] = []
    }

    /// Records the reads and writes of the next part, called `name` in a reason.
    mutating func add(_ touches: ImportTouches, named name: String) -> Outcome {
        let part = Int32(partNames.count)
        partNames.append(name)
        var outcome = Outcome()
        if let entity = touches.entitiesReadWhole.min() {
            outcome.dependency = "\(name) read every \(entity.rawValue) record"
            return outcome
        }
        var written: Set<Touched> = []
        written.reserveCapacity(touches.writes.count + touches.backLinkWrites.count)
        for touched in touches.writes.lazy.map(Touched.record) + touches.backLinkWrites.lazy.map(Touched.backLinks)
        where written.insert(touched).inserted {
            let fingerprint = Fingerprint(touched)
            var entry = entries[fingerprint] ?? Entry()
            // Parts that give children to a parent or take them from it commute (each child is
            // written by one part); a record written by two parts does not.
            if !touched.isPlural, entry.writer >= 0 && entry.writer != part {
                outcome.dependency = "\(touched) is changed by \(self.name(entry.writer)) and by \(name)"
                return outcome
            }
            if entry.reader != -1 && entry.reader != part {
                outcome.dependency = "\(touched) \(touched.isPlural ? "are" : "is") read by \(self.name(entry.reader)) and changed by \(name)"
                return outcome
            }
            entry.writer = entry.writer == -1 || entry.writer == part ? part : -2
            entries[fingerprint] = entry
        }
        for touched in touches.reads.lazy.map(Touched.record) + touches.backLinkReads.lazy.map(Touched.backLinks)
        where !written.contains(touched) {
            let fingerprint = Fingerprint(touched)
            var entry = entries[fingerprint] ?? Entry()
            if entry.writer != -1 && entry.writer != part {
                outcome.dependency = "\(touched) \(touched.isPlural ? "are" : "is") changed by \(self.name(entry.writer)) and read by \(name)"
                return outcome
            }
            entry.reader = entry.reader == -1 || entry.reader == part ? part : -2
            entries[fingerprint] = entry
        }
        for key in touches.unchanged {
            let fingerprint = Fingerprint(.record(key))
            var entry = entries[fingerprint] ?? Entry()
            if entry.countedUnchanged { outcome.countedAgain.append(key) }
            entry.countedUnchanged = true
            entries[fingerprint] = entry
        }
        return outcome
    }

    /// The name of part `part`, or of the parts when it is -2 (more than one).
    private func name(_ part: Int32) -> String {
        part >= 0 ? partNames[Int(part)] : "several earlier batches"
    }
}
