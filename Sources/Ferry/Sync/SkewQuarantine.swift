/// The changes a pull keeps out because they are stamped further ahead of this clock than the
/// bound (`--max-skew`): a replica whose clock ran ahead published them (to a hub, which has no
/// clock to refuse them by). Each is kept out with every later change of its replica (a
/// replica's changes come in order, with no gaps), everything else is applied, and the sync
/// says so; the peer's mark is not recorded as read, so the next sync offers them again, and
/// they come in once this clock reaches them or the bound is raised.
///
/// ```swift
/// var quarantine = SkewQuarantine(limit: 86_400_000)
/// let admitted = quarantine.admit(batch.changes, now: clock.milliseconds())
/// report.notes += quarantine.notes(peer: "./hub")
/// ```
struct SkewQuarantine: Sendable {
    /// What was kept out of one replica's changes.
    struct Held: Sendable, Equatable {
        /// The first counter kept out; every later one is kept out too.
        var firstCounter: UInt64
        var count = 0
        /// How far the furthest one was stamped ahead of this clock.
        var aheadByMilliseconds: UInt64 = 0
    }

    /// The bound, in milliseconds.
    let limit: UInt64
    private(set) var held: [ReplicaID: Held] = [:]

    init(limit: UInt64) {
        self.limit = limit
    }

    var isEmpty: Bool { held.isEmpty }

    /// The changes of `changes` to apply: all but those stamped more than the bound ahead of
    /// `now` and the later changes of their replicas.
    mutating func admit(_ changes: [Change], now: UInt64) -> [Change] {
        var admitted: [Change] = []
        admitted.reserveCapacity(changes.count)
        for change in changes {
            let ahead = change.timestamp.physical > now ? change.timestamp.physical - now : 0
            if var entry = held[change.origin], change.counter >= entry.firstCounter {
                entry.count += 1
                entry.aheadByMilliseconds = max(entry.aheadByMilliseconds, ahead)
                held[change.origin] = entry
            } else if ahead > limit {
                held[change.origin] = Held(firstCounter: change.counter, count: 1, aheadByMilliseconds: ahead)
            } else {
                admitted.append(change)
            }
        }
        return admitted
    }

    /// Whether `change` was kept out (for a page read again from the peer).
    func holds(_ change: Change) -> Bool {
        held[change.origin].map { change.counter >= $0.firstCounter } ?? false
    }

    /// One line for each replica whose changes were kept out.
    func notes(peer: String) -> [String] {
        held.sorted { $0.key.rawValue < $1.key.rawValue }.map { origin, entry in
            "quarantined \(entry.count) change\(entry.count == 1 ? "" : "s") of replica \(origin.short) from \(peer), "
                + "stamped up to \(ClockSkewText.duration(entry.aheadByMilliseconds)) ahead of this clock "
                + "(--max-skew \(limit / 1000) s): not applied, everything else was; they come in once this clock reaches them "
                + "or with a larger --max-skew; that replica, its clock fixed, re-stamps what it has not published with 'ferry sync --restamp'"
        }
    }
}
