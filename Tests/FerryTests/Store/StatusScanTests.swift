import FerryTestSupport
import Testing
@testable import Ferry

/// The status scan that looks files up by path while walking the index, then streams the
/// folders for files no record claimed.
@Suite struct StatusScanTests {
    @Test func findsEveryKindOfEditWithLongIdsAndOddNames() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/store")
        defer { store.close() }
        let products = try EntityName("Product")
        let long = try RecordID(String(repeating: "a", count: 250))
        try store.put(["name": "Lamp"], entity: products, id: RecordID("lamp"))
        try store.put(["name": "Chair"], entity: products, id: RecordID("chair"))
        try store.put(["name": "Long"], entity: products, id: long)
        try store.writeSnapshot()
        #expect(try store.status().isClean)
        let folder = store.path + "/records/Product/"
        _ = try FileSystem.writeFileAtomically(folder + "desk.json", Array("{\"name\": \"Desk\"}\n".utf8), durable: false)
        _ = try FileSystem.writeFileAtomically(folder + "Odd Name.json", Array("{}\n".utf8), durable: false)
        try FileSystem.removeFile(folder + "chair.json")
        _ = try FileSystem.writeFileAtomically(folder + "lamp.json", Array("{\"name\": \"Lamp 2\"}\n".utf8), durable: false)
        try FileSystem.createDirectory(folder + "stray")
        let status = try store.status()
        #expect(status.edits.map(\.kind) == [.deleted, .created, .modified], "\(status.edits)")
        #expect(status.edits.map(\.key.id.rawValue) == ["chair", "desk", "lamp"])
        #expect(status.problems.map(\.path).sorted() == ["records/Product/Odd Name.json", "records/Product/stray"], "\(status.problems)")
    }
}
