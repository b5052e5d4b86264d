import FerryTestSupport
import Testing

@testable import Ferry

/// A kind of peer that is not Ferry's: a folder of JSON files, one change a file
/// (`changes/000001.json`, …), that another program writes and reads. It implements only the
/// nine requirements of ``SyncTransport`` (no snapshot, no write check, no request count), and
/// the engine syncs stores through it with every rule it applies to its own peers: chains,
/// digests, conflicts, checkpoints.
private final class JSONFolderPeer: SyncTransport, @unchecked Sendable {
    /// Where the folder stands: how many change files it holds, and the chain of their hashes
    /// (so a folder whose files were replaced does not pass for the one the mark was made in).
    struct Mark: Codable, Hashable {
        var files: Int
        var chain: String
    }

    let path: String
    private var replica = ReplicaID.generate()
    private var files: [[UInt8]] = []
    private var changesRead: [Change] = []

    init(path: String) { self.path = path }

    var peerDescription: String { path }

    func open() async throws(SyncError) -> PeerInfo {
        do {
            try FileSystem.createDirectories(path + "/changes")
            let identity = path + "/peer.json"
            if let bytes = try? FileSystem.readFile(identity, limit: 1 << 16),
                let text = (try? JSONParser.parse(bytes))?.objectValue?["replica"]?.stringValue, let id = ReplicaID(text)
            {
                replica = id
            } else {
                _ = try FileSystem.writeFileAtomically(identity, JSONValue.object(["replica": .string(replica.rawValue)]).canonicalBytes(), durable: true)
            }
            files = []
            changesRead = []
            var number = 1
            while let bytes = try? FileSystem.readFile(file(number), limit: 64 << 20) {
                guard let fields = try JSONParser.parse(bytes).objectValue else { throw SyncError.transport("\(file(number)) is not an object") }
                changesRead.append(try Change(jsonFields: fields))
                files.append(bytes)
                number += 1
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw .transport("\(path): \(error)")
        }
        let latest = changesRead.map(\.timestamp).max() ?? .zero
        return PeerInfo(
            replica: replica, name: "json-folder", format: StoreManifest.currentFormat, mark: mark, isEmpty: files.isEmpty,
            latestModification: latest)
    }

    func close() async {}

    func frontier() async throws(SyncError) -> ReplicaFrontier {
        var counters: [ReplicaID: UInt64] = [:]
        var digests: [ReplicaID: SHA256Digest] = [:]
        for change in changesRead where change.counter > counters[change.origin, default: 0] {
            counters[change.origin] = change.counter
            digests[change.origin] = change.digest
        }
        return ReplicaFrontier(knowledge: VersionVector(counters), digests: digests)
    }

    func liveRecordCount() async throws(SyncError) -> Int {
        var live: [RecordKey: Bool] = [:]
        for change in changesRead { live[change.key] = !change.isDelete }
        return live.values.filter { $0 }.count
    }

    private var mark: PeerMark { PeerMark(Mark(files: files.count, chain: hash(at: UInt64(files.count)).hex)) }

    func resume(from mark: PeerMark) async throws(SyncError) -> UInt64? {
        guard let own = mark.decode(Mark.self), own.files <= files.count, hash(at: UInt64(own.files)).hex == own.chain else { return nil }
        return UInt64(own.files)
    }

    func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch {
        var batch = ChangeBatch(changes: [], through: position, head: UInt64(files.count))
        var index = Int(position)
        while index < changesRead.count && batch.changes.count < limit {
            let change = changesRead[index]
            if change.counter > knowledge[change.origin] { batch.changes.append(change) }
            index += 1
            batch.through = UInt64(index)
        }
        return batch
    }

    func push(_ changes: [Change], maximumSkew: UInt64, continuing expected: PeerMark?) async throws(SyncError) -> PushResult {
        var result = PushResult()
        let continues = expected == mark
        let known = try await frontier().knowledge
        for change in changes {
            guard change.counter > known[change.origin] else {
                result.alreadyKnown += 1
                continue
            }
            let bytes = change.jsonValue.canonicalBytes()
            do { _ = try FileSystem.writeFileAtomically(file(files.count + 1), bytes, durable: true) } catch {
                throw .transport("\(path): \(error)")
            }
            files.append(bytes)
            changesRead.append(change)
            result.applied += 1
        }
        result.markAfter = continues ? mark : nil
        return result
    }

    func saveCheckpoint(_ checkpoint: PeerCheckpoint) async throws(SyncError) {
        let record: JSONValue = ["replica": .string(checkpoint.replica.rawValue), "position": .integer(Int64(checkpoint.replicaMark.position))]
        do {
            _ = try FileSystem.writeFileAtomically(
                path + "/checkpoint-\(checkpoint.replica.rawValue).json", record.canonicalBytes(), durable: true)
        } catch { throw .transport("\(path): \(error)") }
    }

    private func file(_ number: Int) -> String {
        let digits = String(number)
        return path + "/changes/" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".json"
    }

    /// A position's hash: the chain of the files' hashes up to it.
    private func hash(at position: UInt64) -> SHA256Digest {
        var hasher = SHA256()
        for bytes in files.prefix(Int(position)) { hasher.update(SHA256.hash(bytes).bytes) }
        return hasher.finalize()
    }
}

@Suite struct ExamplePeerTests {
    let notes = try! EntityName("Note")

    @Test func twoStoresSyncThroughAFolderOfJSONFiles() async throws {
        let directory = try TemporaryDirectory()
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        defer {
            laptop.close()
            phone.close()
        }
        let folder = directory.subpath("exchange")
        for n in 0..<5 { try laptop.put(["n": .integer(Int64(n))], entity: notes, id: RecordID("n\(n)")) }
        var report = try await laptop.sync(with: JSONFolderPeer(path: folder))
        #expect(report.plan == .fullPush && report.pushed == 5)
        report = try await phone.sync(with: JSONFolderPeer(path: folder))
        #expect(report.plan == .fullPull && report.pulled == 5)
        #expect(try phone.records(of: notes).count == 5)

        // Concurrent edits of one record meet as a conflict on both sides, as with any peer.
        try laptop.put(["n": 100], entity: notes, id: RecordID("n1"))
        try phone.put(["n": 200], entity: notes, id: RecordID("n1"))
        try phone.delete(entity: notes, id: RecordID("n2"))
        report = try await phone.sync(with: JSONFolderPeer(path: folder))
        #expect(report.pushed == 2)
        report = try await laptop.sync(with: JSONFolderPeer(path: folder))
        #expect(report.pulled == 2 && report.conflicts.map(\.id.rawValue) == ["n1"])
        report = try await phone.sync(with: JSONFolderPeer(path: folder))
        #expect(report.pulled == 1 && report.conflicts.map(\.id.rawValue) == ["n1"])
        #expect(try laptop.get(entity: notes, id: RecordID("n2")) == nil)
        #expect(try laptop.get(entity: notes, id: RecordID("n1")) == phone.get(entity: notes, id: RecordID("n1")))

        // Nothing new: the checkpoint makes it up to date.
        report = try await laptop.sync(with: JSONFolderPeer(path: folder))
        #expect(report.plan == .upToDate)

        // The other program rewrites a change it holds: the digest no longer matches, and the
        // store refuses it before applying anything.
        let first = folder + "/changes/000001.json"
        let edited = String(decoding: try FileSystem.readFile(first, limit: 1 << 20), as: UTF8.self)
            .replacingOccurrences(of: "\"n\":0", with: "\"n\":7")
        _ = try FileSystem.writeFileAtomically(first, Array(edited.utf8), durable: false)
        let fresh = try Store.create(at: directory.subpath("fresh"), name: "fresh")
        defer { fresh.close() }
        let refusal = await #expect(throws: SyncError.self) { try await fresh.sync(with: JSONFolderPeer(path: folder)) }
        #expect(refusal?.description.contains("digest") == true, "\(String(describing: refusal))")
        #expect(try fresh.records(of: notes).isEmpty)
    }
}
