import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// The bases of a collection's records: one table and a log, read back exactly after any
/// sequence of saves, merges, crashes and reopenings.
@Suite struct BackendBaseTableTests {
    static let replicas = (0..<3).map { _ in ReplicaID.generate() }

    /// A base; every other one with `updated` and content, and half of those (live) with
    /// their values checked when Ferry wrote them.
    static func base(_ number: Int, deleted: Bool = false) -> BackendState.Base {
        var base = BackendState.Base(
            ferryID: "record-\(number)", revision: "ferry:\(replicas[0].rawValue):\(number + 1)",
            version: VersionVector([replicas[number % 3]: UInt64(number + 1), replicas[(number + 1) % 3]: 7]), isDeleted: deleted)
        if number % 2 == 0 {
            base.updated = "2026-11-30 05:\(10 + number % 50):00.\(100 + number % 900)Z"
            base.content = SHA256.hash(Array("content-\(number)".utf8))
            base.valuesChecked = !deleted && number % 4 == 0
        }
        return base
    }

    /// The third field says deleted (`1`), live (`0`), or live with its values checked when
    /// Ferry wrote them (`2`), which earlier versions read as live; a line without content
    /// is never taken as checked.
    @Test func aBaseWhoseValuesWereCheckedIsWrittenWithATwoAndReadBack() throws {
        var line: [UInt8] = []
        BackendBaseTable.encode("abc", Self.base(4), into: &line)
        #expect(line.popLast() == 10)
        let fields = line.split(separator: 9, omittingEmptySubsequences: false)
        #expect(fields.count == 7 && fields[2] == [50])
        #expect(BackendBaseTable.decode(line[...])?.1 == Self.base(4))
        #expect(BackendBaseTable.decode(line[...])?.1.valuesChecked == true)
        line.removeAll()
        BackendBaseTable.encode("abc", Self.base(2), into: &line)
        #expect(line.popLast() == 10)
        #expect(line.split(separator: 9, omittingEmptySubsequences: false)[2] == [48])
        #expect(BackendBaseTable.decode(line[...])?.1.valuesChecked == false)
        let withoutContent = Array("abc\tferry:x:1\t2\trecord-1\t".utf8)
        let decoded = try #require(BackendBaseTable.decode(withoutContent[...])?.1)
        #expect(!decoded.isDeleted && !decoded.valuesChecked)
    }

    /// A backend id per number, spread so that sorted order differs from insertion order.
    static func backendID(_ number: Int) -> String {
        String(SHA256.hash(Array("id-\(number)".utf8)).hex.prefix(15))
    }

    @Test func basesSurviveReopeningThroughTheLogAndThroughMerges() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.subpath("bases/Item")
        var expected: [String: BackendState.Base] = [:]
        var random = SeededRandom(seed: 7)
        // Merges from 300 log entries on, and a table far larger than the 16 KB window, so
        // lookups binary-search the file (and, after 512 of them, the table read whole), or,
        // at the cost a lookup is reckoned, read it whole after a few.
        for round in 0..<6 {
            let table = try BackendBaseTable(folder: folder, minimumMerge: 300)
            for _ in 0..<1000 {
                let number = Int(random.next() % 3000)
                if random.next() % 10 == 0 {
                    table.remove(Self.backendID(number))
                    expected[Self.backendID(number)] = nil
                } else {
                    let base = Self.base(number, deleted: random.next() % 7 == 0)
                    table.set(base, for: Self.backendID(number))
                    expected[Self.backendID(number)] = base
                }
                if random.next() % 500 == 0 { try table.save(durable: random.next() % 2 == 0) }
            }
            try table.save(durable: true)
            let reopened = try BackendBaseTable(folder: folder, minimumMerge: 300, lookupCost: 1)
            for number in 0..<3000 {
                #expect(try reopened.base(for: Self.backendID(number)) == expected[Self.backendID(number)], "round \(round), \(number)")
            }
            // With lookups reckoned at 32 KiB, the table is read whole after a few of them.
            let readWhole = try BackendBaseTable(folder: folder, minimumMerge: 300)
            for number in 0..<3000 {
                #expect(try readWhole.base(for: Self.backendID(number)) == expected[Self.backendID(number)], "round \(round), \(number), read whole")
            }
            var listed: [String] = []
            try reopened.forEachBackendID { listed.append($0) }
            #expect(listed.count == expected.count && Set(listed) == Set(expected.keys), "round \(round)")
        }
        let table = try FileSystem.readFile(folder + "/table", limit: 1 << 30)
        #expect(table.count > 50_000, "a table big enough to be searched on disk")
    }

    /// A small collection edited again and again has few records and a long log: the log is
    /// merged by its lines, not by its records, so a sync never reads more than the bound.
    @Test func aLogOfFewRecordsEditedOftenIsMergedByItsLength() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.subpath("bases/Item")
        for round in 0..<40 {
            let table = try BackendBaseTable(folder: folder, minimumMerge: 16)
            for number in 0..<3 { table.set(Self.base(number + round), for: Self.backendID(number)) }
            try table.save(durable: true)
        }
        let log = try FileSystem.readFile(folder + "/log")
        #expect(log.filter { $0 == 10 }.count < 16, "the log holds \(log.filter { $0 == 10 }.count) lines")
        let reopened = try BackendBaseTable(folder: folder, minimumMerge: 16)
        for number in 0..<3 { #expect(try reopened.base(for: Self.backendID(number)) == Self.base(number + 39)) }
    }

    @Test func anIdOfAnyShapeIsEscapedAndReadBack() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.subpath("bases/Odd")
        let odd = ["tab\there", "new\nline", "per%cent", "%41", "é ü", "cr\r", String(repeating: "z", count: 300)]
        let table = try BackendBaseTable(folder: folder)
        for (index, id) in odd.enumerated() {
            var base = Self.base(index)
            base.ferryID = id + "\t" + id
            base.revision = "rev\n\(id)"
            table.set(base, for: id)
        }
        try table.save(durable: true)
        let reopened = try BackendBaseTable(folder: folder)
        for (index, id) in odd.enumerated() {
            let base = try #require(try reopened.base(for: id))
            #expect(base.ferryID == id + "\t" + id && base.revision == "rev\n\(id)" && base.version == Self.base(index).version)
        }
        #expect(try reopened.base(for: "tab") == nil)
    }

    @Test func aTornLastLineOfTheLogIsCutOffAndLaterAppendsAreRead() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.subpath("bases/Item")
        let table = try BackendBaseTable(folder: folder)
        table.set(Self.base(1), for: "a")
        table.set(Self.base(2), for: "b")
        try table.save(durable: true)
        // A crash in the middle of the next append: half a line.
        let log = try FileDescriptor.open(folder + "/log", .writeOnly, options: [.append])
        try log.writeAll(Array("+\tc\tferry:x".utf8))
        log.close()
        let reopened = try BackendBaseTable(folder: folder)
        #expect(try reopened.base(for: "c") == nil)
        reopened.set(Self.base(4), for: "d")
        try reopened.save(durable: true)
        let again = try BackendBaseTable(folder: folder)
        #expect(try again.base(for: "a") == Self.base(1))
        #expect(try again.base(for: "b") == Self.base(2))
        #expect(try again.base(for: "d") == Self.base(4))
    }

    @Test func perRecordBaseFilesOfEarlierVersionsAreAdopted() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.subpath("bases/Item")
        _ = try FileSystem.createDirectories(folder)
        let base = Self.base(3, deleted: true)
        let object: JSONValue = ["id": .string(base.ferryID), "rev": .string(base.revision), "vv": base.version.jsonValue, "deleted": true]
        _ = try FileSystem.writeFileAtomically(folder + "/abc.json", object.canonicalBytes(), durable: true)
        let table = try BackendBaseTable(folder: folder)
        #expect(try table.base(for: "abc") == base)
        #expect(!FileSystem.exists(folder + "/abc.json"))
        #expect(try BackendBaseTable(folder: folder).base(for: "abc") == base)
    }

    @Test func aDamagedTableIsAnErrorThatSaysWhatToDo() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.subpath("bases/Item")
        _ = try FileSystem.createDirectories(folder)
        _ = try FileSystem.writeFileAtomically(folder + "/table", Array("not a table\n".utf8), durable: false)
        #expect {
            _ = try BackendBaseTable(folder: folder)
        } throws: { error in
            "\(error)".contains("does not start with a Ferry bases header") && "\(error)".contains("move")
        }
    }
}
