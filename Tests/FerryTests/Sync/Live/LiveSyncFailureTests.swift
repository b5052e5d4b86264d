import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// What a live sync says of failures: an error once until it changes (the loop goes on), a
/// refusal that only the user can lift every time, and the round after a failure is flagged.
@Suite struct LiveSyncFailureTests {
    @Test func anErrorIsSaidOnceUntilItChangesAndAMassDeletionEveryTime() async throws {
        let directory = try TemporaryDirectory()
        let (a, b) = try twoStores(in: directory)
        defer { a.close() }
        let peer = PeerAddress.store(b)
        let gone = SyncError.transport("the peer is gone")
        let massDeletion = SyncError.massDeletion(store: a.path, deleting: 11, of: 20, limitPercent: 50, floor: 10)
        let script: [SyncError?] = [gone, gone, gone, .transport("the peer moved"), massDeletion, massDeletion, nil]
        let rounds = RoundCounter()
        var settings = LiveSync.Options()
        settings.interval = .milliseconds(1)  // each round comes straight after the one before
        let options = settings
        let live = LiveSync(store: a, peer: peer, options: options) {
            let index = rounds.add() - 1
            if index < script.count, let error = script[index] { throw error }
            return try await LiveSync.defaultRound(store: a, peer: peer, options: options)
        }
        live.start()
        var said: [String] = []
        for await event in live.events {
            if case .failed(let error) = event { said.append("\(error)") }
            if case .synced(let round) = event {
                #expect(round.afterError)
                break
            }
        }
        await live.stop()
        #expect(said == ["\(gone)", "\(SyncError.transport("the peer moved"))", "\(massDeletion)", "\(massDeletion)"])
    }

    @Test func aFailedRoundIsTriedAgainSoonNotAtTheInterval() async throws {
        let directory = try TemporaryDirectory()
        let (a, b) = try twoStores(in: directory)
        defer { a.close() }
        let peer = PeerAddress.store(b)
        var settings = LiveSync.Options()
        settings.interval = .seconds(600)
        let options = settings
        let rounds = RoundCounter()
        let live = LiveSync(store: a, peer: peer, options: options) {
            // The first round meets a passing failure (the peer busy); nothing wakes the loop after it.
            if rounds.add() == 1 { throw SyncError.transport("the peer is busy") }
            return try await LiveSync.defaultRound(store: a, peer: peer, options: options)
        }
        live.start()
        let recovered = await waitForEvent(of: live) { event in
            if case .synced(let round) = event { return round.afterError }
            return false
        }
        #expect(recovered, "the round after the failure came long before the interval")
        await live.stop()
    }
}
