#if canImport(Observation)
import Foundation
import Observation
import Testing
import FerryTestSupport
@testable import Ferry

/// `ObservedRecords` follows `store.observe` through Observation, as a SwiftUI view reads it:
/// the test waits on Observation's own word that `records` changed (with a deadline).
@Suite struct ObservedRecordsTests {
    @MainActor @Test func recordsFollowTheStoreAndObservationTellsOfEachChange() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/a", name: "a")
        defer { store.close() }
        let note = try EntityName("Note")
        _ = try store.put(.object(["title": .string("milk")]), entity: note, id: RecordID("n1"))
        let observed = ObservedRecords(store: store, entity: note) { _, document in document["done"] != .bool(true) }
        #expect(await Self.waitUntil(observed) { observed.records.map(\.id.rawValue) == ["n1"] })
        _ = try store.put(.object(["title": .string("eggs")]), entity: note, id: RecordID("n2"))
        #expect(await Self.waitUntil(observed) { observed.records.map(\.id.rawValue) == ["n1", "n2"] })
        _ = try store.put(.object(["title": .string("milk"), "done": .bool(true)]), entity: note, id: RecordID("n1"))
        #expect(await Self.waitUntil(observed) { observed.records.map(\.id.rawValue) == ["n2"] })
        #expect(observed.failure == nil)
        observed.stop()
    }

    /// Waits, on Observation's word that `records` changed, until `condition` holds; at most `seconds`.
    @MainActor static func waitUntil(_ observed: ObservedRecords, seconds: Int = 60, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let once = ResumeOnce(continuation)
                withObservationTracking { _ = observed.records } onChange: { once.resume() }
                let left = ContinuousClock.now.duration(to: deadline).components
                Task { await Deadline.reached(after: Double(left.seconds) + Double(left.attoseconds) / 1e18); once.resume() }
            }
        }
        return true
    }
}

/// Resumes a continuation once, whichever of two callers comes first.
final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

    func resume() {
        let taken: CheckedContinuation<Void, Never>? = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        taken?.resume()
    }
}
#endif
