@testable import Ferry
import Foundation
import Testing

/// When a sync may leave `state.json` as it is (``BackendState/isEquivalent(to:overlapMilliseconds:)``).
@Suite struct BackendStateTests {
    static let overlap: Int64 = 2000

    /// A state saved after a listing that began 5 s after the newest record's `updated`.
    static func saved() -> BackendState {
        var state = BackendState(location: "pocketbase+http://127.0.0.1:8090", proxy: ReplicaID.generate())
        state.watermarks["notes"] = "2026-01-01 10:00:00.000Z"
        state.listedAt["notes"] = "2026-01-01 10:00:05.000Z"
        state.updatedKnown = ["notes"]
        state.knownCounts["notes"] = 3
        return state
    }

    @Test func aLaterListingPastTheWindowChangesNothingALaterSyncReads() {
        let saved = Self.saved()
        var later = saved
        later.listedAt["notes"] = "2026-01-01 10:07:00.000Z"
        #expect(later.listingStart(of: "notes", overlapMilliseconds: Self.overlap) == "2026-01-01 10:00:00.000Z")
        #expect(later.isEquivalent(to: saved, overlapMilliseconds: Self.overlap))
        #expect(saved.isEquivalent(to: saved, overlapMilliseconds: Self.overlap))
    }

    @Test func aListingStartThatMovesIsSaved() {
        // The saved listing began within the window: the next one starts 2 s before it, not at the watermark.
        var saved = Self.saved()
        saved.listedAt["notes"] = "2026-01-01 10:00:01.000Z"
        var later = saved
        later.listedAt["notes"] = "2026-01-01 10:07:00.000Z"
        #expect(saved.listingStart(of: "notes", overlapMilliseconds: Self.overlap) == "2026-01-01 09:59:59.000Z")
        #expect(!later.isEquivalent(to: saved, overlapMilliseconds: Self.overlap))
        // A collection listed for the first time.
        var first = Self.saved()
        first.listedAt["notes"] = nil
        #expect(!Self.saved().isEquivalent(to: first, overlapMilliseconds: Self.overlap))
    }

    @Test func anyOtherChangeIsSaved() throws {
        let saved = Self.saved()
        let key = RecordKey(entity: try EntityName("Note"), id: try RecordID("n1"))
        var changes: [(String, (inout BackendState) -> Void)] = [
            ("watermark", { $0.watermarks["notes"] = "2026-01-01 10:00:00.001Z" }),
            ("count", { $0.knownCounts["notes"] = 4 }),
            ("purge", { $0.purgedAt["notes"] = "2026-01-01 10:07:00.000Z" }),
            ("stand-in", { $0.standIn.sequence += 1 }),
            ("field kinds", { $0.fieldKinds["notes"] = ["title": .text] }),
            ("latest write", { $0.latestWritten["notes"] = "2026-01-01 10:00:00.000Z" }),
            ("differing", { $0.differing[key] = "title" }),
        ]
        changes.append(("listed whole", { $0.updatedKnown = [] }))
        for (what, change) in changes {
            var later = saved
            change(&later)
            later.listedAt["notes"] = "2026-01-01 10:07:00.000Z"
            #expect(!later.isEquivalent(to: saved, overlapMilliseconds: Self.overlap), "\(what)")
        }
    }
}
