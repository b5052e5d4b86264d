import Testing
@testable import Ferry

/// Every kind of tampering with the journal is found, classified and located at its segment
/// and line, with no other tampering finding around it.
@Suite struct VerifyTamperingTests {
    let fixture: AuditFixture

    init() throws { fixture = try AuditFixture() }

    /// A closed store with eight entries in one segment: puts of r0…r5, an edit of r1 and a
    /// delete of r2.
    func makeStore() throws -> (AuditFixture, String) {
        let store = try fixture.create("laptop")
        for index in 0..<6 { try fixture.put(store, ["name": .string("record \(index)"), "n": .integer(Int64(index))], nil, "r\(index)") }
        try fixture.put(store, ["name": "record 1", "n": 100], nil, "r1")
        try fixture.delete(store, nil, "r2")
        store.close()
        let path = fixture.path("laptop")
        #expect(try verifyInPartitions(at: path).isClean)
        return (fixture, path)
    }

    /// The tampering findings of the store at `path`.
    func tampering(_ path: String) throws -> [VerificationFinding] {
        let report = try verifyInPartitions(at: path)
        #expect(!report.checkedRecords, "records are not compared with a damaged journal")
        return report.findings.filter { $0.category == .tampering }
    }

    func expectOne(_ findings: [VerificationFinding], _ kind: VerificationFinding.Kind, _ location: String) {
        #expect(findings.count == 1, "\(findings)")
        #expect(findings.first?.kind == kind, "\(findings)")
        #expect(findings.first?.location == location, "\(findings)")
    }

    @Test func flippedByteInADocument() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        let index = try #require(lines[2].firstIndex(of: UInt8(ascii: "2")))  // "record 2" → "record 3"
        lines[2][index] = UInt8(ascii: "3")
        try files.write(files.first, lines)
        expectOne(try tampering(path), .editedLine, "journal/\(files.first):3")
    }

    @Test func flippedByteThatBreaksTheJSON() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        lines[4][0] = UInt8(ascii: "[")
        try files.write(files.first, lines)
        expectOne(try tampering(path), .malformedLine, "journal/\(files.first):5")
    }

    @Test func flippedByteInTheHashField() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        let text = String(decoding: lines[3], as: UTF8.self)
        let range = try #require(text.range(of: #""hash":""#))
        var bytes = Array(text.utf8)
        let offset = text.utf8.distance(from: text.startIndex, to: range.upperBound)
        bytes[offset] = bytes[offset] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        lines[3] = bytes
        try files.write(files.first, lines)
        expectOne(try tampering(path), .editedLine, "journal/\(files.first):4")
    }

    @Test func removedLine() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        lines.remove(at: 2)
        try files.write(files.first, lines)
        let findings = try tampering(path)
        expectOne(findings, .removedLines, "journal/\(files.first):3")
        #expect(findings.first?.message.contains("seq 3") == true)
    }

    @Test func removedLines() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        lines.removeSubrange(1...3)
        try files.write(files.first, lines)
        let findings = try tampering(path)
        expectOne(findings, .removedLines, "journal/\(files.first):2")
        #expect(findings.first?.message.contains("seq 2…4 (3 entries)") == true)
    }

    @Test func insertedFabricatedEntryWithAValidHash() throws {
        let (fixture, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        let third = try files.entry(files.first, line: 3)
        var change = third.change
        change.key = RecordKey(entity: fixture.products, id: try RecordID("forged"))
        change.operation = .put(["forged": true])
        let forged = JournalEntry(
            sequence: 4, change: change, previousSequenceOfRecord: 0, previousHash: third.hash, hash: .zero)
        lines.insert(JournalFiles.line(forged), at: 3)
        try files.write(files.first, lines)
        expectOne(try tampering(path), .insertedLine, "journal/\(files.first):4")
    }

    @Test func insertedCopyOfAnotherLine() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        lines.insert(lines[1], at: 5)
        try files.write(files.first, lines)
        let findings = try tampering(path)
        expectOne(findings, .insertedLine, "journal/\(files.first):6")
        #expect(findings.first?.message.contains("a copy of seq 2") == true)
    }

    @Test func insertedGarbageLine() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        lines.insert(Array(#"{"hello":"world"}"#.utf8), at: 2)
        try files.write(files.first, lines)
        expectOne(try tampering(path), .insertedLine, "journal/\(files.first):3")
    }

    @Test func swappedLines() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        lines.swapAt(3, 4)
        try files.write(files.first, lines)
        let findings = try tampering(path)
        #expect(findings.count == 1, "\(findings)")
        #expect(findings.first?.kind == .reorderedLine)
        #expect(["journal/\(files.first):4", "journal/\(files.first):5"].contains(findings.first?.location ?? ""))
    }

    @Test func lineMovedFarAway() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        let moved = lines.remove(at: 1)
        lines.append(moved)
        try files.write(files.first, lines)
        let findings = try tampering(path)
        expectOne(findings, .reorderedLine, "journal/\(files.first):8")
        #expect(findings.first?.message.contains("seq 2") == true)
    }

    @Test func rewrittenLineWithRecomputedHash() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        var entry = try files.entry(files.first, line: 7)
        entry.change.operation = .put(["name": "record 1", "n": 1_000_000])
        lines[6] = JournalFiles.line(entry)
        try files.write(files.first, lines)
        let findings = try tampering(path)
        expectOne(findings, .rewrittenLine, "journal/\(files.first):7")
    }

    @Test func rewrittenLastLineIsCaughtByTheIndex() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        var entry = try files.entry(files.first, line: 7)
        entry.change.operation = .put(["name": "record 1", "n": 1_000_000])
        lines[6] = JournalFiles.line(entry)
        lines.removeLast()
        try files.write(files.first, lines)
        let findings = try tampering(path)
        #expect(findings.map(\.kind) == [.truncatedJournal], "\(findings)")
        #expect(findings.first?.location == ".ferry/index")
    }

    @Test func chainRebuiltFromALineOnIsCaughtByTheIndex() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        var lines = try files.lines(files.first)
        var previous = try files.entry(files.first, line: 4).hash
        for number in 5...8 {
            var entry = try files.entry(files.first, line: number)
            if number == 5 { entry.change.operation = .put(["name": "record 4", "n": 4444]) }
            entry.previousHash = previous
            lines[number - 1] = JournalFiles.line(entry)
            previous = try lines[number - 1].withUnsafeBytes { try JournalEntry.decode(line: $0) }.hash
        }
        try files.write(files.first, lines)
        let findings = try tampering(path)
        expectOne(findings, .rewrittenJournal, "journal/\(files.first):8")
    }

    @Test func truncatedLastSegmentIsCaughtByTheIndex() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        let lines = try files.lines(files.first)
        try files.write(files.first, Array(lines.prefix(5)))
        let findings = try tampering(path)
        expectOne(findings, .truncatedJournal, ".ferry/index")
        #expect(findings.first?.message.contains("covers seq 8 but the journal ends at seq 5") == true)
    }

    @Test func emptiedJournalIsCaughtByTheIndex() throws {
        let (_, path) = try makeStore()
        let files = JournalFiles(store: path)
        try FileSystem.removeFile(files.directory + "/" + files.first)
        expectOne(try tampering(path), .truncatedJournal, ".ferry/index")
    }
}

/// Tampering across segment files. The store's 9 entries are split into segments of three
/// (`…1.jsonl`, `…4.jsonl`, `…7.jsonl`), as a journal rolled over at three entries would be;
/// the verifier is told that limit.
@Suite struct VerifySegmentTamperingTests {
    let fixture: AuditFixture

    init() throws { fixture = try AuditFixture() }

    let names = ["00000000000000000001.jsonl", "00000000000000000004.jsonl", "00000000000000000007.jsonl"]

    func makeStore() throws -> String {
        let store = try fixture.create("laptop")
        for index in 0..<9 { try fixture.put(store, ["v": .integer(Int64(index))], fixture.notes, "n\(index % 4)") }
        store.close()
        let files = JournalFiles(store: store.path)
        let lines = try files.lines(files.first)
        try FileSystem.removeFile(files.directory + "/" + files.first)
        for (offset, name) in names.enumerated() { try files.write(name, Array(lines[(offset * 3)..<(offset * 3 + 3)])) }
        let report = try verify(store.path)
        #expect(report.isClean, "\(report.findings)")
        #expect(report.segmentCount == 3)
        return store.path
    }

    func verify(_ path: String) throws -> VerificationReport {
        try verifyInPartitions(at: path, segmentEntryLimit: 3)
    }

    func tampering(_ path: String) throws -> [VerificationFinding] {
        try verify(path).findings.filter { $0.category == .tampering }
    }

    @Test func segmentCutInTheMiddleOfALine() throws {
        let path = try makeStore()
        let files = JournalFiles(store: path)
        let bytes = try FileSystem.readFile(files.directory + "/" + names[1])
        try files.writeBytes(names[1], Array(bytes.dropLast(40)))
        let findings = try tampering(path)
        #expect(findings.map(\.kind) == [.truncatedSegment], "\(findings)")
        #expect(findings.first?.location == "journal/\(names[1]):3")
        #expect(findings.first?.message.contains("in the middle of a line after seq 5; seq 6 were cut off") == true)
    }

    @Test func segmentCutAtALineBoundary() throws {
        let path = try makeStore()
        let files = JournalFiles(store: path)
        try files.write(names[0], Array(try files.lines(names[0]).prefix(1)))
        let findings = try tampering(path)
        #expect(findings.map(\.kind) == [.truncatedSegment], "\(findings)")
        #expect(findings.first?.location == "journal/\(names[0]):1")
        #expect(findings.first?.message.contains("seq 2…3 (2 entries) were cut off") == true)
    }

    @Test func missingFirstAndMiddleSegments() throws {
        let path = try makeStore()
        let files = JournalFiles(store: path)
        try FileSystem.removeFile(files.directory + "/" + names[1])
        var findings = try tampering(path)
        #expect(findings.map(\.kind) == [.missingSegment], "\(findings)")
        #expect(findings.first?.location == "journal/" + names[1])
        #expect(findings.first?.message.contains("seq 4…6 (3 entries)") == true)

        try FileSystem.rename(files.directory + "/" + names[0], to: files.directory + "/" + names[1])
        findings = try tampering(path)
        #expect(Set(findings.map(\.kind)) == [.missingSegment, .misnamedSegment], "\(findings)")
    }

    @Test func missingFirstSegment() throws {
        let path = try makeStore()
        let files = JournalFiles(store: path)
        try FileSystem.removeFile(files.directory + "/" + names[0])
        let findings = try tampering(path)
        #expect(findings.map(\.kind) == [.missingSegment], "\(findings)")
        #expect(findings.first?.location == "journal/" + names[0])
    }

    @Test func missingLastSegmentIsCaughtByTheIndex() throws {
        let path = try makeStore()
        let files = JournalFiles(store: path)
        try FileSystem.removeFile(files.directory + "/" + names[2])
        let findings = try tampering(path)
        #expect(findings.map(\.kind) == [.truncatedJournal], "\(findings)")
    }

    @Test func renamedSegment() throws {
        let path = try makeStore()
        let files = JournalFiles(store: path)
        try FileSystem.rename(files.directory + "/" + names[1], to: files.directory + "/00000000000000000005.jsonl")
        var findings = try tampering(path)
        #expect(findings.map(\.kind) == [.misnamedSegment], "\(findings)")
        #expect(findings.first?.location == "journal/00000000000000000005.jsonl")
        // Renamed so that it sorts before the first: still one finding, not three moved lines.
        try FileSystem.rename(files.directory + "/00000000000000000005.jsonl", to: files.directory + "/00000000000000000002.jsonl")
        findings = try tampering(path)
        #expect(findings.map(\.kind) == [.misnamedSegment], "\(findings)")
        try FileSystem.rename(files.directory + "/00000000000000000002.jsonl", to: files.directory + "/" + names[1])
        #expect(try verify(path).isClean)
        // Not a segment name at all.
        try FileSystem.rename(files.directory + "/" + names[1], to: files.directory + "/4.jsonl")
        findings = try tampering(path)
        #expect(findings.contains { $0.kind == .misnamedSegment && $0.location == "journal/4.jsonl" }, "\(findings)")
    }

    @Test func removedFirstLinesOfASegment() throws {
        let path = try makeStore()
        let files = JournalFiles(store: path)
        try files.write(names[2], Array(try files.lines(names[2]).dropFirst(2)))
        let findings = try tampering(path)
        #expect(findings.map(\.kind) == [.removedLines], "\(findings)")
        #expect(findings.first?.location == "journal/\(names[2]):1")
    }

    @Test func linesMovedBetweenSegments() throws {
        let path = try makeStore()
        let files = JournalFiles(store: path)
        var first = try files.lines(names[0])
        var second = try files.lines(names[1])
        let moved = first.removeLast()
        second.insert(moved, at: 1)
        try files.write(names[0], first)
        try files.write(names[1], second)
        let findings = try tampering(path)
        #expect(findings.map(\.kind) == [.reorderedLine], "\(findings)")
        #expect(findings.first?.location == "journal/\(names[1]):2")
    }
}

/// A journal that really rolled over (4,100 entries: 4,096 + 4) verifies clean.
@Suite struct VerifyRolledJournalTests {
    @Test func rolledJournalIsClean() throws {
        let fixture = try AuditFixture()
        let store = try fixture.create("laptop")
        var writes: [RecordWrite] = []
        for index in 0..<4100 {
            writes.append(.put(RecordKey(entity: fixture.notes, id: try RecordID("n\(index % 500)")), ["v": .integer(Int64(index))]))
        }
        try store.write(writes)
        store.close()
        #expect(JournalFiles(store: store.path).segments == ["00000000000000000001.jsonl", "00000000000000004097.jsonl"])
        let report = try verifyInPartitions(at: store.path)
        #expect(report.isClean, "\(report.findings)")
        #expect(report.entryCount == 4100)
        #expect(report.segmentCount == 2)
        #expect(report.recordCount == 500)
        #expect(report.checkedIndex && report.checkedRecords)
        withExtendedLifetime(fixture) {}
    }
}
