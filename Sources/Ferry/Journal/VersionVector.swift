/// A record's causal version: for each replica, the counter of its latest change that this
/// version has seen.
///
/// Comparing two vectors tells whether one version descends from the other or whether they
/// were made concurrently (a conflict, unless their content is identical).
///
/// ```swift
/// let order = incoming.compare(to: stored)   // .equal, .before, .after, .concurrent
/// ```
public struct VersionVector: Sendable, Hashable, CustomStringConvertible {
    /// Replica → counter of its latest change included in this version.
    public private(set) var counters: [ReplicaID: UInt64]

    public init(_ counters: [ReplicaID: UInt64] = [:]) {
        self.counters = counters.filter { $0.value > 0 }
    }

    /// How two versions are related.
    public enum Order: Sendable, Equatable {
        /// Both saw exactly the same changes.
        case equal
        /// `self` is an ancestor of the other (the other has seen everything `self` has, and more).
        case before
        /// `self` descends from the other.
        case after
        /// Each saw a change the other did not: concurrent edits.
        case concurrent
    }

    /// The counter for `replica` (0 when it never touched this record).
    public subscript(replica: ReplicaID) -> UInt64 {
        get { counters[replica] ?? 0 }
        set { counters[replica] = newValue == 0 ? nil : newValue }
    }

    /// Compares two versions.
    public func compare(to other: VersionVector) -> Order {
        var less = false
        var greater = false
        for (replica, counter) in counters {
            let theirs = other[replica]
            if counter < theirs { less = true } else if counter > theirs { greater = true }
        }
        for (replica, theirs) in other.counters where counters[replica] == nil && theirs > 0 {
            less = true
        }
        switch (less, greater) {
        case (false, false): return .equal
        case (true, false): return .before
        case (false, true): return .after
        case (true, true): return .concurrent
        }
    }

    /// Whether this version has seen every change `other` has.
    public func dominates(_ other: VersionVector) -> Bool {
        let order = compare(to: other)
        return order == .after || order == .equal
    }

    /// The least version that has seen both: the element-wise maximum.
    public func merged(with other: VersionVector) -> VersionVector {
        var result = self
        for (replica, counter) in other.counters where counter > result[replica] {
            result[replica] = counter
        }
        return result
    }

    /// Whether the change `origin`/`counter` is included in this version.
    public func contains(origin: ReplicaID, counter: UInt64) -> Bool {
        self[origin] >= counter
    }

    /// The replicas in a stable order, for writing.
    public var sortedCounters: [(ReplicaID, UInt64)] {
        counters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `{replica: counter, …}` with short replica ids.
    public var description: String {
        "{" + sortedCounters.map { "\($0.0.short):\($0.1)" }.joined(separator: ", ") + "}"
    }

    /// The vector as a JSON object, as the journal stores it.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [:]
        for (replica, counter) in counters { members[replica.rawValue] = .integer(Int64(counter)) }
        return .object(members)
    }

    /// Appends the canonical form of ``jsonValue`` without building it: the journal writes
    /// one vector per entry. Replica ids are lowercase UUIDs, which need no escaping, and sort
    /// by their bytes as canonical keys do.
    func writeCanonical(to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        func member(_ replica: ReplicaID, _ counter: UInt64) {
            output.append(UInt8(ascii: "\""))
            output.append(contentsOf: replica.rawValue.utf8)
            output.append(contentsOf: #"":"#.utf8)
            output.appendDecimal(counter)
        }
        if counters.count == 1, let (replica, counter) = counters.first {
            member(replica, counter)
        } else {
            let ordered = counters.sorted { $0.key.rawValue.utf8.lexicographicallyPrecedes($1.key.rawValue.utf8) }
            for (offset, (replica, counter)) in ordered.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                member(replica, counter)
            }
        }
        output.append(UInt8(ascii: "}"))
    }

    /// Reads a vector from its JSON object form; `nil` if malformed.
    public init?(json: JSONValue) {
        guard let members = json.objectValue else { return nil }
        var counters: [ReplicaID: UInt64] = [:]
        for (key, value) in members {
            guard let replica = ReplicaID(key), let counter = value.integerValue, counter > 0 else { return nil }
            counters[replica] = UInt64(counter)
        }
        self.counters = counters
    }
}
