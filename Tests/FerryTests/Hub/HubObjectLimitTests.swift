import Foundation
import Testing
import FerryTestSupport
import FerryURLSession
@testable import Ferry

/// A hub object over the size its kind may have is refused before it is read (issue 48, item 5):
/// someone who can write to the folder or bucket must not make every reader hold gigabytes.
@Suite struct HubObjectLimitTests {
    static let notes = try! EntityName("Note")

    /// A store that pushed one note to a hub folder, and the path of its head there.
    func laptopOnHub(_ directory: TemporaryDirectory) async throws -> (hub: String, head: String, key: String) {
        let hub = directory.subpath("hub")
        try await Hub.create(in: FolderHubStorage(root: hub))
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        try laptop.put(["n": 1], entity: Self.notes, id: RecordID("a"))
        _ = try await laptop.sync(with: HubTransport(folder: hub), options: SyncOptions())
        let key = HubHead.key(of: laptop.replicaID)
        return (hub, hub + "/" + key, key)
    }

    @Test func aHeadOfTenGigabytesInAFolderIsRefusedUnread() async throws {
        let directory = try TemporaryDirectory()
        let (hub, head, key) = try await laptopOnHub(directory)
        // A sparse file: ten gigabytes to whoever reads it, nothing on the disk.
        #expect(truncate(head, 10 << 30) == 0)
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        let before = phone.head
        do {
            _ = try await phone.sync(with: HubTransport(folder: hub), options: SyncOptions())
            Issue.record("a ten-gigabyte head was accepted")
        } catch {
            let message = "\(error)"
            #expect(message.contains(key))
            #expect(message.contains("10240.0 MiB") && message.contains("it was not read"), "\(message)")
        }
        #expect(phone.head == before, "nothing applied")

        let report = try await HubVerifier(storage: FolderHubStorage(root: hub)).verify()
        #expect(report.findings.contains { $0.contains("it was not read") }, "\(report.findings)")
    }

    @Test func aSegmentOverTheLimitIsAFindingNotAMissingSegment() async throws {
        let directory = try TemporaryDirectory()
        let (hub, _, _) = try await laptopOnHub(directory)
        let segments = try FileManager.default.subpathsOfDirectory(atPath: hub + "/segments").filter { $0.hasSuffix(".seg") }
        let segment = try #require(segments.first)
        #expect(truncate(hub + "/segments/" + segment, off_t(HubSegment.maximumByteCount) + 1) == 0)
        let report = try await HubVerifier(storage: FolderHubStorage(root: hub)).verify()
        #expect(report.findings.contains { $0.hasPrefix("segments/" + segment) && $0.contains("it was not read") }, "\(report.findings)")
        #expect(report.missing.isEmpty)
    }

    @Test func anS3HeadOverTheLimitIsReadNoFurtherThanTheLimit() async throws {
        let directory = try TemporaryDirectory()
        guard let weed = try SeaweedFS.availableOrSkip() else { return }
        let server = try await SeaweedFS.start(in: directory.subpath("weed"), executable: weed)
        defer { server.stop() }
        try await server.createBucket("hub")
        let client = S3Client(configuration: server.configuration, httpClient: URLSessionHTTPClient(), retryDelay: 0.05)
        let storage = S3HubStorage(location: try S3Location(parsing: "s3://hub/notes"), client: client)
        try await Hub.create(in: storage)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        try laptop.put(["n": 1], entity: Self.notes, id: RecordID("a"))
        _ = try await laptop.sync(with: HubTransport(storage: storage), options: SyncOptions())

        // The head, replaced by someone with write access to the bucket: one byte over.
        let key = HubHead.key(of: laptop.replicaID)
        _ = try await client.putObject(bucket: "hub", key: "notes/" + key, bytes: [UInt8](repeating: 0x20, count: HubHead.maximumByteCount + 1))
        // A ranged GET: the bytes past the limit never come.
        let read = try #require(try await client.getObject(bucket: "hub", key: "notes/" + key, limit: 1024))
        #expect(read.bytes.count == 1025 && read.size == Int64(HubHead.maximumByteCount + 1) && !read.etag.isEmpty)

        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        await #expect {
            _ = try await phone.sync(with: HubTransport(storage: storage), options: SyncOptions())
        } throws: { error in
            "\(error)".contains(key) && "\(error)".contains("it was not read")
        }
        // An object within its limit reads whole, with the ETag a listing gives.
        let descriptor = try #require(try await storage.get(HubDescriptor.key, limit: HubDescriptor.maximumByteCount))
        let listed = try await storage.list(prefix: HubDescriptor.key)
        #expect(listed.first?.tag == descriptor.tag && Int64(descriptor.bytes.count) == listed.first?.size)
    }
}
