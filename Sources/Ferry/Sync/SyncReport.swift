/// What a sync did (or, for a dry run, would do).
public struct SyncReport: Sendable {
    /// The plan chosen.
    public var plan: SyncPlan
    /// Changes received from the peer and applied here (would be, for a dry run).
    public var pulled: Int = 0
    /// Changes sent to the peer and applied there.
    public var pushed: Int = 0
    /// Records conflicted after the sync (listed by `ferry conflicts`).
    public var conflicts: [RecordKey] = []
    /// Conflicts resolved by the policy (lww, merge) in this sync.
    public var resolved: Int = 0
    /// Whether nothing was written.
    public var dryRun = false
    /// Wall time of the whole sync, in seconds.
    public var duration: Double = 0
    /// Both sides' latest modification when the sync began.
    public var localLatestModification: HybridTimestamp = .zero
    public var peerLatestModification: HybridTimestamp = .zero
    /// The peer's replica id.
    public var peer: ReplicaID?

    public init(plan: SyncPlan) { self.plan = plan }

    /// The report as JSON: `plan`, `pulled`, `pushed`, `conflicts` (count), and details.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "plan": .string(plan.rawValue), "pulled": .integer(Int64(pulled)), "pushed": .integer(Int64(pushed)),
            "conflicts": .integer(Int64(conflicts.count)),
            "conflictedRecords": .array(conflicts.map { .string($0.description) }),
            "resolved": .integer(Int64(resolved)), "dryRun": .bool(dryRun), "durationSeconds": .number(duration),
            "localLatestModification": .string(localLatestModification.description),
            "peerLatestModification": .string(peerLatestModification.description),
        ]
        if let peer { members["peer"] = .string(peer.rawValue) }
        return .object(members)
    }
}

/// Progress of a long sync, reported to ``SyncOptions/progress``.
public struct SyncProgress: Sendable {
    public enum Phase: String, Sendable { case planning, pulling, resolving, pushing, done }
    public var phase: Phase
    /// Changes handled so far in this phase.
    public var completed: Int
    /// Changes to handle in this phase, when known.
    public var total: Int?
}

/// How a sync runs.
public struct SyncOptions: Sendable {
    /// What to do with concurrent versions that differ.
    public var policy: ConflictPolicy = .keepBoth
    /// Plan and count, but change nothing.
    public var dryRun = false
    /// Go ahead despite a mass deletion or a peer that lost its history.
    public var force = false
    /// The largest share of a store's records one sync may delete without `force`.
    public var maximumDeletionShare: Double = 0.5
    /// A received change stamped further ahead of the local clock than this is refused.
    public var maximumClockSkewMilliseconds: UInt64 = 86_400_000
    /// Changes per page, for bounded memory and one fsync per page.
    public var pageSize = 5_000
    /// Called as the sync makes progress.
    public var progress: (@Sendable (SyncProgress) -> Void)?

    public init(policy: ConflictPolicy = .keepBoth) { self.policy = policy }
}
