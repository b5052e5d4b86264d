import Ferry
import FerryTestSupport
import Foundation
import Testing

/// Names travel with the changes: a replica learns the name of one it never met from the peer
/// that passed its changes on, keeps a name as first heard, and never takes its own from a peer.
@Suite struct ReplicaNameRelayTests {
    let notes = try! EntityName("Note")

    @Test func aNameReachesAReplicaTwoHopsAway() async throws {
        let phone = MemoryReplica(name: "phone")
        let stick = MemoryReplica(name: "stick")
        let laptop = MemoryReplica(name: "laptop")
        try phone.put(["t": 1], entity: notes, id: RecordID("n1"))
        _ = try await SyncEngine(replica: phone, transport: stick).run()
        _ = try await SyncEngine(replica: laptop, transport: stick).run()
        #expect(laptop.knownReplicaNames[phone.replicaID] == "phone")
        #expect(laptop.knownReplicaNames[stick.replicaID] == "stick")
        // And back: the phone hears the laptop's name through the stick.
        try laptop.put(["t": 2], entity: notes, id: RecordID("n2"))
        _ = try await SyncEngine(replica: laptop, transport: stick).run()
        _ = try await SyncEngine(replica: phone, transport: stick).run()
        #expect(phone.knownReplicaNames[laptop.replicaID] == "laptop")
    }

    @Test func aBookKeepsTheFirstNameAndRefusesBadOnes() throws {
        let (a, b) = (ReplicaID.generate(), ReplicaID.generate())
        var book = ReplicaNameBook([a: "phone"])
        let renamed = book.learn([a: "impostor"])
        #expect(!renamed)
        let added = book.learn([b: "tablet", ReplicaID.generate(): "two\nlines", ReplicaID.generate(): String(repeating: "x", count: 65)])
        #expect(added)
        #expect(book.names == [a: "phone", b: "tablet"])
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"), name: "mine")
        try store.learnReplicaNames([store.replicaID: "not mine", a: "phone"])
        #expect(store.replicaNames().label(for: store.replicaID) == "mine")
        #expect(store.replicaNames().label(for: a) == "phone")
        #expect(try ReplicaNameBook.load(from: store.layout).names == [a: "phone"])
    }

    @Test func aHubHeadCarriesTheNamesItsReplicaKnows() throws {
        let (replica, other) = (ReplicaID.generate(), ReplicaID.generate())
        var head = HubHead(replica: replica, name: "laptop", updated: 1_700_000_000_000)
        head.names = [other: "phone"]
        let read = try HubHead(bytes: head.bytes, key: HubHead.key(of: replica), expected: replica, location: "test")
        #expect(read.names == [other: "phone"] && read.name == "laptop")
    }
}
