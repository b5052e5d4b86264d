/// Cuts a stream of changes into runs that end where every signing origin's last change is
/// signed, so that each run handed to a store (``Store/receive(_:from:maximumSkew:)``, a push)
/// can be checked on its own: a page read from a journal may end in the middle of a batch,
/// before the signature that covers it.
///
/// What follows the last such point is held until the stream goes on; the changes held stay
/// few, since a replica signs at least every ``Store/sealInterval`` changes of its own.
///
/// ```swift
/// var runs = SealedRuns { replica.requiresSignatures(from: $0) }
/// for page in pages { let run = runs.add(page); if !run.isEmpty { try replica.receive(run, …) } }
/// guard runs.held.isEmpty else { throw … }
/// ```
struct SealedRuns {
    /// The changes read but not yet handed on.
    private(set) var held: [Change] = []
    /// Origins seen signing in this stream (a replica made before changes were signed, once
    /// it signs).
    private var signing = Set<ReplicaID>()
    private let requiresSignatures: (ReplicaID) -> Bool
    private var required: [ReplicaID: Bool] = [:]

    /// - Parameter requiresSignatures: whether an origin must sign its work at the receiver.
    init(requiresSignatures: @escaping (ReplicaID) -> Bool) {
        self.requiresSignatures = requiresSignatures
    }

    /// Adds the next page and returns the changes ready to hand on: the longest run, from the
    /// first held change, after which no signing origin's change is left unsigned.
    mutating func add(_ page: [Change]) -> [Change] {
        held.append(contentsOf: page)
        for change in page where change.chain?.seal != nil { signing.insert(change.origin) }
        var open = Set<ReplicaID>()
        var cut = 0
        for (offset, change) in held.enumerated() {
            if mustSign(change.origin) {
                if change.chain?.seal != nil { open.remove(change.origin) } else { open.insert(change.origin) }
            }
            if open.isEmpty { cut = offset + 1 }
        }
        let ready = Array(held[..<cut])
        held.removeFirst(cut)
        return ready
    }

    /// The error for what is still held once the stream ended: changes of a signing origin that
    /// no signature covers.
    func unsignedRemainder(source: String) -> SyncError? {
        guard let first = held.first(where: { mustSignNow($0.origin) }) else { return nil }
        let last = held.last { $0.origin == first.origin } ?? first
        return .unsignedWork(
            source: source, origin: first.origin, counter: last.counter,
            reason: "changes \(first.counter) to \(last.counter) carry no signature that covers them")
    }

    /// For each change of `changes`, whether a run may end after it: every origin that signs
    /// (a key-derived id, or one with a signed change among them) has its last change so far signed.
    static func endsSigned(_ changes: [Change]) -> [Bool] {
        var signing = Set<ReplicaID>()
        for change in changes where change.chain?.seal != nil { signing.insert(change.origin) }
        var open = Set<ReplicaID>()
        return changes.map { change in
            if change.origin.isKeyDerived || signing.contains(change.origin) {
                if change.chain?.seal != nil { open.remove(change.origin) } else { open.insert(change.origin) }
            }
            return open.isEmpty
        }
    }

    private mutating func mustSign(_ origin: ReplicaID) -> Bool {
        if signing.contains(origin) { return true }
        if let known = required[origin] { return known }
        let answer = requiresSignatures(origin)
        required[origin] = answer
        return answer
    }

    private func mustSignNow(_ origin: ReplicaID) -> Bool {
        signing.contains(origin) || required[origin] == true
    }
}

/// For each origin, its last change among those read and its last signed one: all a
/// ``SealCheck`` of the whole needs (the chain of each origin is checked as they are read).
struct SealTails {
    private var last: [ReplicaID: Change] = [:]
    private var lastSigned: [ReplicaID: Change] = [:]

    mutating func add(_ changes: [Change]) {
        for change in changes {
            last[change.origin] = change
            if change.chain?.seal != nil { lastSigned[change.origin] = change }
        }
    }

    /// The changes to check, in an order that keeps each origin's counters rising.
    var changes: [Change] {
        var result: [Change] = []
        for (origin, change) in last {
            if let signed = lastSigned[origin], signed.counter < change.counter { result.append(signed) }
            result.append(change)
        }
        return result
    }
}
