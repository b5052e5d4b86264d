import Foundation
import Testing

@testable import Ferry

/// The session alone: events in, actions out, no replica and no peer. Each test plays what an
/// engine would find and checks what the session says to do.
@Suite struct SyncSessionTests {
    let local = ReplicaID.generate()
    let peerID = ReplicaID.generate()

    func session(_ direction: SyncDirection = .both, policy: ConflictPolicy = .keepBoth, instance: String? = "dev1:ino1") -> SyncSession {
        SyncSession(replica: local, instance: instance, location: "/laptop", peerDescription: "/usb", direction: direction, policy: policy)
    }

    func head(_ sequence: UInt64) -> StoreHead {
        StoreHead(sequence: sequence, hash: sequence == 0 ? .zero : SHA256.hash(Array("\(sequence)".utf8)), latestModification: .zero)
    }

    func mark(_ position: UInt64) -> PeerMark { PeerMark(StoreMark(head(position))) }

    func peer(at position: UInt64, replica: ReplicaID? = nil, instance: String? = nil) -> PeerInfo {
        PeerInfo(replica: replica ?? peerID, name: "usb", format: StoreManifest.currentFormat, head: head(position), instance: instance)
    }

    func checkpoint(local position: UInt64, peer peerPosition: UInt64) -> SyncCheckpoint {
        SyncCheckpoint(peer: peerID, peerMark: mark(peerPosition), localPosition: position, localHash: head(position).hash, time: 0)
    }

    /// Plays a whole exchange: each action answered by the event an engine would give.
    func play(
        _ session: inout SyncSession, opened info: PeerInfo, local state: SyncSession.LocalState, readEverything: Bool = true,
        wroteRecords: Bool = false, pushedMark: PeerMark? = nil
    ) throws -> [SyncSession.Action] {
        var actions = [try session.handle(.opened(info, local: state))]
        while let action = actions.last, action != .finish, actions.count < 20 {
            let event: SyncSession.Event
            switch action {
            case .compareFrontiers: event = .frontiersCompared
            case .join: event = .joined
            case .pull: event = .pulled(readEverything: readEverything, wroteRecords: wroteRecords)
            case .resolve: event = .resolved
            case .push(let mark): event = .pushed(mark: pushedMark ?? mark, tookAll: true)
            case .saveCheckpoints: event = .checkpointsSaved
            case .finish: continue
            }
            actions.append(try session.handle(event))
        }
        return actions
    }

    @Test func nothingChangedSinceTheCheckpointEndsAtOnce() throws {
        var s = session()
        let state = SyncSession.LocalState(head: head(5), checkpoint: checkpoint(local: 5, peer: 9), peerStart: 9)
        #expect(try play(&s, opened: peer(at: 9), local: state) == [.finish])
        #expect(s.plan == .upToDate)
    }

    @Test func anIncrementalExchangeReadsOnFromTheCheckpointAndRecordsTheMarksLast() throws {
        var s = session()
        let state = SyncSession.LocalState(head: head(7), checkpoint: checkpoint(local: 5, peer: 9), peerStart: 9)
        let afterPush = mark(12)
        let actions = try play(&s, opened: peer(at: 10), local: state, pushedMark: afterPush)
        #expect(actions == [
            .compareFrontiers(.init(local: 5, peer: 9)), .join, .pull(copyingAll: false),
            .push(continuing: mark(10)),
            .saveCheckpoints(.init(savesLocal: true, savesPeer: true, peerMark: afterPush, localPosition: nil)), .finish,
        ])
    }

    @Test func anEmptyStoreCopiesEverythingAndAResolvingPolicyResolves() throws {
        var s = session(policy: .lastWriterWins)
        let actions = try play(&s, opened: peer(at: 10), local: .init(head: head(0)), wroteRecords: true)
        #expect(s.plan == .fullPull)
        #expect(actions.prefix(4) == [.compareFrontiers(.init(local: 0, peer: 0)), .join, .pull(copyingAll: true), .resolve])
    }

    @Test func keepBothNeverAsksToResolve() throws {
        var s = session()
        let actions = try play(&s, opened: peer(at: 10), local: .init(head: head(3)), wroteRecords: true)
        #expect(s.plan == .reconcile)
        #expect(!actions.contains(.resolve))
    }

    @Test func pullOnlyNeverPushesAndRecordsNothingAtThePeer() throws {
        var s = session(.pullOnly)
        let state = SyncSession.LocalState(head: head(7), checkpoint: checkpoint(local: 5, peer: 9), peerStart: 9)
        let actions = try play(&s, opened: peer(at: 10), local: state)
        #expect(!actions.contains { if case .push = $0 { true } else { false } })
        #expect(actions.contains(.saveCheckpoints(.init(savesLocal: true, savesPeer: false, peerMark: mark(10), localPosition: 5))))
    }

    @Test func pushOnlyNeverReadsThePeerAndKeepsTheMarkItHad() throws {
        var s = session(.pushOnly)
        let state = SyncSession.LocalState(head: head(7), checkpoint: checkpoint(local: 5, peer: 9), peerStart: 9)
        let actions = try play(&s, opened: peer(at: 10), local: state)
        #expect(actions == [
            .compareFrontiers(.init(local: 5, peer: 9)), .push(continuing: mark(9)),
            .saveCheckpoints(.init(savesLocal: false, savesPeer: true, peerMark: mark(9), localPosition: nil)), .finish,
        ])
    }

    @Test func aPullThatLeftChangesOutDoesNotRecordThePeerAsRead() throws {
        var s = session(.pullOnly)
        let state = SyncSession.LocalState(head: head(7), checkpoint: checkpoint(local: 7, peer: 9), peerStart: 9)
        let actions = try play(&s, opened: peer(at: 10), local: state, readEverything: false)
        #expect(actions.contains(.saveCheckpoints(.init(savesLocal: true, savesPeer: false, peerMark: mark(9), localPosition: 7))))
    }

    @Test func theSameStoreOrACopyOfItIsRefused() {
        var same = session()
        #expect(throws: SyncError.self) { try same.handle(.opened(peer(at: 3, replica: local, instance: "dev1:ino1"), local: .init(head: head(3)))) }
        var copy = session()
        do {
            _ = try copy.handle(.opened(peer(at: 3, replica: local, instance: "dev1:ino2"), local: .init(head: head(3))))
            Issue.record("a copy was not refused")
        } catch {
            guard case .copiedStore = error else { Issue.record("not named a copy: \(error)"); return }
        }
    }

    @Test func anUnfinishedJoinFromAnotherSourceIsRefused() {
        var s = session()
        let join = SnapshotJoins.Join(source: ReplicaID.generate(), location: "/hub", snapshot: .zero, started: 0, position: nil)
        #expect(throws: SyncError.self) { try s.handle(.opened(peer(at: 3), local: .init(head: head(0), pendingJoin: join))) }
    }

    @Test func anEventOutOfOrderIsAnErrorNotAStep() throws {
        var s = session()
        #expect(throws: SyncError.self) { try s.handle(.pushed(mark: nil, tookAll: true)) }
        var open = session()
        _ = try open.handle(.opened(peer(at: 10), local: .init(head: head(3))))
        #expect(throws: SyncError.self) { try open.handle(.checkpointsSaved) }
    }
}
