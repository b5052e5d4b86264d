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
    /// Hand edits of record files journaled during the sync: the peer's found on opening it,
    /// and those it found among the records it received (for a dry run, those it would journal).
    public var committedEdits: Int = 0
    /// The peer's files that its hand-edit scan could not read as records (not journaled).
    public var peerProblems: [StoreStatus.Problem] = []
    /// For a reconcile of two stores that never synced before: the live records each side
    /// brings into the merge.
    public var merging: (localRecords: Int, peerRecords: Int)?
    /// What the sync would refuse to do (a dry run reports these instead of failing).
    public var refusals: [String] = []
    /// Which ways changes went.
    public var direction: SyncDirection = .both
    /// What the peer's transport noticed without failing (a hub segment not arrived yet).
    public var notes: [String] = []
    /// Requests made to the peer, when its transport counts them (a hub).
    public var requests: Int?
    /// The snapshot the store joined from (would join, for a dry run) before pulling changes.
    public var snapshot: SnapshotOffer?
    /// Changes read a second time to apply or push them, because they outgrew the memory a
    /// sync keeps between checking them and using them (``SyncOptions/maximumKeptChangeBytes``):
    /// a push's from its own journal, a pull's from the peer when it had no spool file.
    public var changesReadAgain: Int = 0
    /// Changes a pull kept in its spool file between checking and applying them, because they
    /// outgrew that memory (``SyncOptions/spoolDirectory``).
    public var changesSpooled: Int = 0
    /// Records the peer did not take (their write met a newer version in every round, or the
    /// peer cannot hold them as they are): the next sync pushes them.
    public var waiting: [RecordKey] = []
    /// Pull-push rounds run: more than one when a push met newer versions at the peer.
    public var rounds = 1
    /// The records of ``waiting`` whose write met a newer version at the peer in the last
    /// round (another round may take them).
    var deferred: [RecordKey] = []

    public init(plan: SyncPlan) { self.plan = plan }

    /// Whether the sync changed anything on either side.
    public var changedAnything: Bool { pulled + pushed + resolved + committedEdits > 0 }

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
        members["committedEdits"] = .integer(Int64(committedEdits))
        if !peerProblems.isEmpty {
            members["peerProblems"] = .array(peerProblems.map { ["path": .string($0.path), "reason": .string($0.reason)] })
        }
        members["refusals"] = .array(refusals.map { .string($0) })
        members["direction"] = .string(direction.rawValue)
        members["notes"] = .array(notes.map { .string($0) })
        // Always there, as every member a sync of any peer reports: null when the peer does not count them.
        members["requests"] = requests.map { .integer(Int64($0)) } ?? .null
        members["changesReadAgain"] = .integer(Int64(changesReadAgain))
        members["changesSpooled"] = .integer(Int64(changesSpooled))
        members["waiting"] = .array(waiting.map { .string($0.description) })
        members["rounds"] = .integer(Int64(rounds))
        if let snapshot {
            let reason: String
            switch snapshot.reason {
            case .join: reason = "join"
            case .collected: reason = "collected"
            case .resume: reason = "resume"
            case .historyNotHeld: reason = "history-not-held"
            }
            var snapshotMembers: [String: JSONValue] = [
                "id": .string(snapshot.id.hex), "records": .integer(Int64(snapshot.recordCount)),
                "versions": .integer(Int64(snapshot.changeCount)), "reason": .string(reason),
            ]
            if let position = snapshot.position { snapshotMembers["position"] = .integer(Int64(clamping: position)) }
            members["snapshot"] = .object(snapshotMembers)
        }
        if let merging {
            members["merging"] = .object([
                "localRecords": .integer(Int64(merging.localRecords)), "peerRecords": .integer(Int64(merging.peerRecords)),
            ])
        }
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
    /// The guard's floor: a sync may always delete this many records of a store without
    /// `force`, whatever their share, so a store of a handful of notes can lose two of them.
    /// A sync is refused only when it deletes more than ``maximumDeletionShare`` *and* more
    /// than this many records.
    public var deletionFloor = 10
    /// A received change stamped further ahead of the local clock than this is refused.
    public var maximumClockSkewMilliseconds: UInt64 = 86_400_000
    /// Changes per page, for bounded memory and one fsync per page.
    public var pageSize = 5_000
    /// How many bytes of changes (about; their documents and 200 bytes each) a sync keeps in
    /// memory between checking every change and applying or pushing any: 32 MiB, about 70,000
    /// changes of small records. Past it a pull keeps them in a spool file
    /// (``spoolDirectory``) and a push reads its own journal again, page by page, so memory
    /// stays flat however many changes a sync carries: an incremental pull of 333k changes held
    /// them all and peaked at 646 MB. ``SyncReport/changesSpooled`` and
    /// ``SyncReport/changesReadAgain`` count them.
    public var maximumKeptChangeBytes = 32 << 20
    /// Where a pull keeps the changes it checked once they outgrow ``maximumKeptChangeBytes``:
    /// an unnamed file in the temporary folder (`TMPDIR`, else `/tmp`) by default, so each
    /// page is fetched from the peer once. `nil`, or a folder where no file can be made, reads
    /// them from the peer again instead (each compared with a hash of the change checked).
    public var spoolDirectory: String? = SpillPartitions.temporaryDirectory
    /// Which ways changes go: both (the default), or only from the peer, or only to it.
    public var direction: SyncDirection = .both
    /// What an empty store copies from a peer store: its state (the default) or its whole history.
    public var history: JoinHistory = .state
    /// How many pull-push rounds a sync runs at most while a push meets newer versions at the
    /// peer (``ReceiveResult/deferred``): each round pulls them (as conflicts, resolved by the
    /// policy) and pushes again.
    public var maximumRounds = 3
    /// Called as the sync makes progress.
    public var progress: (@Sendable (SyncProgress) -> Void)?

    public init(policy: ConflictPolicy = .keepBoth) { self.policy = policy }
}

/// Which ways a sync moves changes.
public enum SyncDirection: String, Sendable {
    /// Pull, then push: both replicas end with the same changes.
    case both
    /// Only pull: the peer is not written (a read-only token, a mirror of the peer).
    case pullOnly = "pull-only"
    /// Only push: this store is not written (a one-way mirror to the peer).
    case pushOnly = "push-only"

    /// Whether the peer's changes come here.
    public var pulls: Bool { self != .pushOnly }
    /// Whether this store's changes go to the peer.
    public var pushes: Bool { self != .pullOnly }
}

extension SyncReport {
    /// Adds another round of the same sync: its counts to these, its conflicts, waiting records
    /// and duration in place of these (they describe the state after it).
    mutating func add(round next: SyncReport) {
        pulled += next.pulled
        pushed += next.pushed
        resolved += next.resolved
        committedEdits += next.committedEdits
        changesReadAgain += next.changesReadAgain
        changesSpooled += next.changesSpooled
        refusals += next.refusals
        notes += next.notes
        conflicts = next.conflicts
        waiting = next.waiting
        deferred = next.deferred
        duration = next.duration
        rounds += next.rounds
    }
}
