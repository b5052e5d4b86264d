/// Proves, part by part, that a streamed import's parts do not depend on each other, so that
/// writing them one after another gives what the one-batch import of the whole input gives.
///
/// Each part (a batch of items, then the deletes) is planned against the store as it was before
/// the import. That plan is the one the part makes when it is written after the parts before it
/// exactly when none of those wrote a record it reads or writes: the ledger keeps, for every
/// record any part touched, whether an earlier part wrote it or read it, and finds the first
/// record written by one part and read or written by another. A part that reads every record of
/// an entity (the one-batch import's prefetch) depends on everything, and is refused too. The
/// children of a derived to-many (``BackLinkIndex``) count as one thing per parent: a part that
/// reads a parent's children depends on any other that gives a record to that parent or takes
/// one from it (parts that only give or take commute, since each child is written by one part).
///
/// Each is kept as a 64-bit fingerprint with three bits of flags (``FingerprintTable``): about
/// 11 bytes a record touched, whatever its documents hold. Two things with the same fingerprint
/// (about one chance in 10^7 for a million records) can only make the ledger see a dependency
/// where there is none, and read the input whole, or count a record unchanged once too few times;
/// never miss a dependency.
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

        /// A 64-bit hash, the same for the same thing throughout the process.
        var fingerprint: UInt64 {
            var hasher = Hasher()
            hasher.combine(self)
            return UInt64(bitPattern: Int64(hasher.finalize()))
        }
    }

    /// The flags of an entry: what the parts before did to it.
    private enum Flag {
        static let written: UInt8 = 1
        static let read: UInt8 = 2
        static let countedUnchanged: UInt8 = 4
    }

    private var table = FingerprintTable()

    /// What ``add(_:named:)`` found.
    struct Outcome {
        /// Why the part depends on an earlier one, when it does.
        var dependency: String?
        /// The records the part counted unchanged that an earlier part counted already.
        var countedAgain: [RecordKey] = []
    }

    /// Checks the reads and writes of the next part, called `name` in a reason, against those
    /// of the parts before it, and records them.
    mutating func add(_ touches: ImportTouches, named name: String) -> Outcome {
        var outcome = Outcome()
        if let entity = touches.entitiesReadWhole.min() {
            outcome.dependency = "\(name) read every \(entity.rawValue) record"
            return outcome
        }
        // Checked against the earlier parts first, then recorded, so that a part never
        // depends on itself.
        var written: Set<Touched> = []
        written.reserveCapacity(touches.writes.count + touches.backLinkWrites.count)
        var writes: [UInt64] = []
        writes.reserveCapacity(written.capacity)
        for touched in touches.writes.lazy.map(Touched.record) + touches.backLinkWrites.lazy.map(Touched.backLinks)
        where written.insert(touched).inserted {
            let fingerprint = touched.fingerprint
            writes.append(fingerprint)
            guard let flags = table.flags(of: fingerprint) else { continue }
            // Parts that give children to a parent or take them from it commute; a record
            // written by two parts does not.
            if !touched.isPlural, flags & Flag.written != 0 {
                outcome.dependency = "\(touched) is changed by an earlier batch and by \(name)"
                return outcome
            }
            if flags & Flag.read != 0 {
                outcome.dependency = "\(touched) \(touched.isPlural ? "are" : "is") read by an earlier batch and changed by \(name)"
                return outcome
            }
        }
        var reads: [UInt64] = []
        reads.reserveCapacity(touches.reads.count + touches.backLinkReads.count)
        for touched in touches.reads.lazy.map(Touched.record) + touches.backLinkReads.lazy.map(Touched.backLinks)
        where !written.contains(touched) {
            let fingerprint = touched.fingerprint
            reads.append(fingerprint)
            if let flags = table.flags(of: fingerprint), flags & Flag.written != 0 {
                outcome.dependency = "\(touched) \(touched.isPlural ? "are" : "is") changed by an earlier batch and read by \(name)"
                return outcome
            }
        }
        for fingerprint in writes { table.insert(fingerprint, flags: Flag.written) }
        for fingerprint in reads { table.insert(fingerprint, flags: Flag.read) }
        for key in touches.unchanged {
            let fingerprint = Touched.record(key).fingerprint
            if let flags = table.flags(of: fingerprint), flags & Flag.countedUnchanged != 0 { outcome.countedAgain.append(key) }
            table.insert(fingerprint, flags: Flag.countedUnchanged)
        }
        return outcome
    }
}
