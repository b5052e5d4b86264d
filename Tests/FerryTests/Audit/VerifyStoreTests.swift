import Testing
@testable import Ferry

/// Verify on stores that were not tampered with: clean after crash recovery, sync and commits;
/// hand edits of record files, interrupted writes and a stale index are told apart from tampering.
@Suite struct VerifyStoreTests {
    let fixture: AuditFixture

    init() throws { fixture = try AuditFixture() }

    func makeStore() throws -> (AuditFixture, Store) {
        let store = try fixture.create("laptop")
        try fixture.put(store, ["name": "Lamp", "price": 12.5], nil, "lamp")
        try fixture.put(store, ["name": "Chair"], nil, "chair")
        try fixture.put(store, ["name": "Desk"], nil, "desk")
        try fixture.put(store, ["name": "Lamp", "price": 14], nil, "lamp")
        try fixture.delete(store, nil, "desk")
        return (fixture, store)
    }

    func file(_ store: Store, _ id: String) -> String {
        store.layout.recordFile(RecordKey(entity: try! EntityName("Product"), id: try! RecordID(id)))
    }

    @Test func cleanStore() throws {
        let (_, store) = try makeStore()
        store.close()
        let report = try verifyInPartitions(at: store.path)
        #expect(report.isClean, "\(report.findings)")
        #expect(report.entryCount == 5)
        #expect(report.segmentCount == 1)
        #expect(report.recordCount == 2)
        #expect(report.checkedIndex)
        #expect(report.checkedRecords)
        #expect(report.jsonValue["clean"] == true)
        #expect(report.jsonValue["findings"] == [])
    }

    @Test func openStoreVerifiesToo() throws {
        let (_, store) = try makeStore()
        // The store is open (it holds no lock between calls) and its image is older.
        #expect(try verifyInPartitions(at: store.path).isClean)
    }

    @Test func handEditsAreUncommittedEditsNotTampering() throws {
        let (fixture, store) = try makeStore()
        _ = try FileSystem.writeFileAtomically(file(store, "lamp"), Array("{\"name\": \"Lamp\", \"price\": 1}\n".utf8), durable: false)
        try FileSystem.removeFile(file(store, "chair"))
        _ = try FileSystem.writeFileAtomically(file(store, "desk"), Array("{\"name\": \"Desk\"}\n".utf8), durable: false)
        _ = try FileSystem.writeFileAtomically(file(store, "new"), Array("{}\n".utf8), durable: false)
        let report = try verifyInPartitions(at: store.path)
        #expect(!report.hasTampering)
        // A missing file is not advised to be committed: that would journal a loss when the
        // file was never written (issue 55, item 5).
        #expect(report.findings.map(\.category) == [.missingFile, .uncommittedEdit, .uncommittedEdit, .uncommittedEdit], "\(report.findings)")
        #expect(report.findings.map(\.kind) == [.missingRecordFile, .fileOfDeletedRecord, .modifiedRecordFile, .unexpectedRecordFile])
        #expect(report.findings.map(\.location) == [
            "records/Product/chair.json", "records/Product/desk.json", "records/Product/lamp.json", "records/Product/new.json",
        ])
        #expect(report.findings[2].record == RecordKey(entity: fixture.products, id: try RecordID("lamp")))
        #expect(report.findings[2].description.contains("uncommitted edit (run ferry commit)"))

        // Committing them makes the store clean again.
        try store.commit()
        store.close()
        let after = try verifyInPartitions(at: store.path)
        #expect(after.isClean, "\(after.findings)")
    }

    @Test func reformattedFileWithTheSameContentIsClean() throws {
        let (_, store) = try makeStore()
        _ = try FileSystem.writeFileAtomically(file(store, "lamp"), Array("{\"price\":14,   \"name\":\"Lamp\"}".utf8), durable: false)
        #expect(try verifyInPartitions(at: store.path).isClean)
    }

    /// The same for a document as large as a store takes (20 MB, past the JSON parser's
    /// default limit), which was reported as a hand edit.
    @Test func reformattedLargeFileWithTheSameContentIsClean() throws {
        let (fixture, store) = try makeStore()
        let document: JSONValue = ["name": "Lamp", "manual": .string(String(repeating: "a", count: 20 << 20))]
        try fixture.put(store, document, nil, "lamp")
        // Its members in another order: not the same bytes, even without the spaces.
        let reordered = #"{"name": "Lamp", "manual": ""# + String(repeating: "a", count: 20 << 20) + "\"}"
        _ = try FileSystem.writeFileAtomically(file(store, "lamp"), Array(reordered.utf8), durable: false)
        let report = try verifyInPartitions(at: store.path)
        #expect(report.isClean, "\(report.findings)")
    }

    @Test func crashLeftovers() throws {
        let (_, store) = try makeStore()
        store.close()
        let files = JournalFiles(store: store.path)
        // A torn last line.
        var bytes = try FileSystem.readFile(files.directory + "/" + files.first)
        bytes += Array(#"{"counter":6,"doc":{"na"#.utf8)
        try files.writeBytes(files.first, bytes)
        // A record file still holding the version before the last put, and an index from
        // before it (the crash came between the journal append and the rest).
        try FileSystem.removeFile(store.layout.index)
        _ = try FileSystem.writeFileAtomically(
            file(store, "lamp"), (["name": "Lamp", "price": 12.5] as JSONValue).prettyBytes(), durable: false)
        let report = try verifyInPartitions(at: store.path)
        #expect(report.findings.map(\.kind) == [.tornTail, .staleRecordFile], "\(report.findings)")
        #expect(report.findings.allSatisfy { $0.category == .interruptedWrite })
        #expect(report.findings[0].location == "journal/\(files.first):6")

        // Opening the store repairs both.
        let reopened = try Store.open(at: store.path)
        reopened.close()
        let after = try verifyInPartitions(at: store.path)
        #expect(after.isClean, "\(after.findings)")
    }

    @Test func cleanAfterSyncBothWays() async throws {
        let a = try fixture.create("a")
        let b = try fixture.create("b")
        try fixture.put(a, ["title": "t"], nil, "n")
        try fixture.put(b, ["other": 1], nil, "m")
        _ = try await fixture.sync(a, with: "b")
        try fixture.put(a, ["title": "A"], nil, "n")
        try fixture.put(b, ["title": "B"], nil, "n")
        _ = try await fixture.sync(b, with: "a")  // a conflict, kept both
        #expect(try !b.conflicts().isEmpty)
        for store in [a, b] {
            store.close()
            let report = try verifyInPartitions(at: store.path)
            #expect(report.isClean, "\(store.path): \(report.findings)")
        }
    }

    @Test func missingConflictFileIsReported() async throws {
        let a = try fixture.create("a")
        let b = try fixture.create("b")
        try fixture.put(a, ["title": "t"], nil, "n")
        _ = try await fixture.sync(b, with: "a")
        try fixture.put(a, ["title": "A"], nil, "n")
        try fixture.put(b, ["title": "B"], nil, "n")
        _ = try await fixture.sync(b, with: "a")
        let conflicts = try b.conflicts()
        let loser = try #require(conflicts.first?.losers.first?.file)
        try FileSystem.removeFile(b.path + "/" + loser)
        let report = try verifyInPartitions(at: b.path)
        #expect(report.findings.map(\.kind) == [.missingConflictFile])
        #expect(report.findings.first?.location == loser)
    }

    @Test func staleIndexIsReportedAsIndex() throws {
        let (fixture, store) = try makeStore()
        try store.writeIndexImage()  // every record in the image, no delta file
        store.close()
        // Drop chair's line from the image, keeping the file well-formed.
        let text = String(decoding: try FileSystem.readFile(store.layout.index), as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let before = lines.count
        lines.removeAll { $0.hasPrefix("K\t\(fixture.products.rawValue)\tchair\t") }
        #expect(lines.count == before - 1)
        let count = lines.filter { $0.hasPrefix("K\t") }.count
        lines = lines.map { $0.hasPrefix("N\t") ? "N\t\(count)" : ($0.hasPrefix("E\t") ? "E\t\(count)" : $0) }
        _ = try FileSystem.writeFileAtomically(store.layout.index, Array(lines.joined(separator: "\n").utf8), durable: false)
        let report = try verifyInPartitions(at: store.path)
        #expect(report.findings.map(\.kind) == [.indexMismatch], "\(report.findings)")
        #expect(report.findings.first?.category == .index)
        #expect(report.findings.first?.record?.id.rawValue == "chair")

        // A record the journal never had (in its sorted place), and another's versions changed.
        try rewriteIndexFile(store.layout.index) { lines in
            let lampPrefix = "K\t\(fixture.products.rawValue)\tlamp\t"
            guard let lamp = lines.firstIndex(where: { $0.hasPrefix(lampPrefix) }) else { return }
            lines.insert(lines[lamp].replacingOccurrences(of: "\tlamp\t", with: "\tghost\t"), at: lamp)
            lines[lamp + 1] = lines[lamp + 1].replacingOccurrences(of: lampPrefix + "4\t", with: lampPrefix + "2\t")
        }
        let findings = try verifyInPartitions(at: store.path).findings
        #expect(findings.map(\.record?.id.rawValue) == ["chair", "ghost", "lamp"], "\(findings)")
        #expect(findings.allSatisfy { $0.kind == .indexMismatch && $0.location == ".ferry/index" })

        _ = try FileSystem.writeFileAtomically(store.layout.index, Array("garbage".utf8), durable: false)
        #expect(try verifyInPartitions(at: store.path).findings.map(\.kind) == [.indexMismatch])
    }

    /// Rewrites an index file's lines, keeping its record counts (`N`, `E`) right.
    func rewriteIndexFile(_ path: String, _ edit: (inout [String]) -> Void) throws {
        let text = String(decoding: try FileSystem.readFile(path), as: UTF8.self)
        var lines = text.split(separator: "\n").map(String.init)
        edit(&lines)
        let count = lines.filter { $0.hasPrefix("K\t") }.count
        lines = lines.map { $0.hasPrefix("N\t") ? "N\t\(count)" : ($0.hasPrefix("E\t") ? "E\t\(count)" : $0) }
        _ = try FileSystem.writeFileAtomically(path, Array((lines.joined(separator: "\n") + "\n").utf8), durable: false)
    }

    @Test func unsortedLinesBadStampsAndStaleCountsAreReported() throws {
        let (fixture, store) = try makeStore()
        try store.writeIndexImage()
        store.close()
        #expect(try verifyInPartitions(at: store.path).isClean)
        let products = fixture.products.rawValue
        // chair, desk, lamp: swap the first two.
        try rewriteIndexFile(store.layout.index) { lines in
            guard let first = lines.firstIndex(where: { $0.hasPrefix("K\t") }) else { return }
            lines.swapAt(first, first + 1)
        }
        var findings = try verifyInPartitions(at: store.path).findings
        #expect(findings.map(\.message).contains { $0.hasPrefix("unsorted: line ") }, "\(findings)")
        #expect(findings.count == 1, "\(findings)")
        try rewriteIndexFile(store.layout.index) { lines in
            guard let first = lines.firstIndex(where: { $0.hasPrefix("K\t") }) else { return }
            lines.swapAt(first, first + 1)
            // A malformed file stamp on chair's line, and one live record too many.
            var fields = lines[first].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            fields[4] = "12,x"
            lines[first] = fields.joined(separator: "\t")
            lines = lines.map { $0 == "L\t\(products)\t2" ? "L\t\(products)\t3" : $0 }
        }
        findings = try verifyInPartitions(at: store.path).findings
        #expect(findings.map(\.message).contains { $0.contains("malformed file stamp") }, "\(findings)")
        #expect(findings.map(\.message).contains { $0.contains("live record counts differ") && $0.contains("Product: 3 in the index, 2 in the journal") })
        #expect(findings.count == 2, "\(findings)")
        #expect(findings.allSatisfy { $0.kind == .indexMismatch })
    }

    @Test func theIndexDeltaIsComparedWithTheImage() throws {
        var options = fixture.options
        options.imageInterval = 1_000_000
        var store = try Store.create(at: fixture.path("delta"), name: "delta", options: options)
        try fixture.put(store, ["name": "Lamp"], nil, "lamp")
        try fixture.put(store, ["name": "Chair"], nil, "chair")
        store.close()
        store = try Store.open(at: fixture.path("delta"), options: options)
        try store.writeIndexImage()  // lamp and chair in the image
        try fixture.put(store, ["name": "Lamp", "price": 3], nil, "lamp")
        try fixture.put(store, ["text": "hi"], fixture.notes, "n1")
        store.close()  // lamp's new version and n1 in the delta
        #expect(FileSystem.exists(store.layout.indexDelta))
        var report = try verifyInPartitions(at: store.path)
        #expect(report.isClean, "\(report.findings)")
        #expect(report.checkedIndex)

        // The delta's line for lamp goes stale; the image's (older) line is not consulted.
        try rewriteIndexFile(store.layout.indexDelta) { lines in
            lines = lines.map { $0.hasPrefix("K\tProduct\tlamp\t3\t") ? $0.replacingOccurrences(of: "\tlamp\t3\t", with: "\tlamp\t1\t") : $0 }
        }
        report = try verifyInPartitions(at: store.path)
        #expect(report.findings.map(\.location) == [".ferry/index-delta"], "\(report.findings)")
        #expect(report.findings.map(\.record?.id.rawValue) == ["lamp"])

        // Without n1's line, the index lacks it; a delta that cannot be read is reported.
        try rewriteIndexFile(store.layout.indexDelta) { lines in
            lines = lines.map { $0.replacingOccurrences(of: "\tlamp\t1\t", with: "\tlamp\t3\t") }
            lines.removeAll { $0.hasPrefix("K\tNote\t") }
        }
        report = try verifyInPartitions(at: store.path)
        #expect(report.findings.map(\.record?.description) == ["Note/n1"], "\(report.findings)")
        _ = try FileSystem.writeFileAtomically(store.layout.indexDelta, Array("ferry-index-delta\t1\nH\n".utf8), durable: false)
        report = try verifyInPartitions(at: store.path)
        #expect(report.findings.map(\.location).first == ".ferry/index-delta", "\(report.findings)")
        #expect(report.findings.first?.message.hasPrefix("unreadable: ") == true)
    }

    @Test func checkpointsAnchorTheJournalToo() async throws {
        let a = try fixture.create("a")
        let b = try fixture.create("b")
        try fixture.put(a, ["v": 1], nil, "x")
        try fixture.put(a, ["v": 2], nil, "y")
        _ = try await fixture.sync(a, with: "b")
        a.close()
        try FileSystem.removeFile(a.layout.index)
        let files = JournalFiles(store: a.path)
        try files.write(files.first, Array(try files.lines(files.first).prefix(1)))
        let findings = try verifyInPartitions(at: a.path).findings
        #expect(findings.map(\.kind) == [.truncatedJournal], "\(findings)")
        #expect(findings.first?.location == ".ferry/peers/\(b.replicaID.rawValue)/checkpoint.json")
        #expect(findings.first?.message.contains("peer b") == true)
    }

    @Test func notAStore() throws {
        #expect(throws: AuditError.store(.notAStore(path: fixture.path("nothing")))) {
            try verifyInPartitions(at: fixture.path("nothing"))
        }
    }
}

/// The chain analysis on made-up lines, for cases hard to make with real files.
@Suite struct JournalChainAnalysisTests {
    func line(_ sequence: UInt64, segment: Int32 = 0, number: Int32? = nil) -> JournalChainAnalysis.Line {
        JournalChainAnalysis.Line(
            segment: segment, number: number ?? Int32(sequence), sequence: sequence, previousHash: hash(sequence - 1),
            hash: hash(sequence), problem: nil)
    }

    func hash(_ sequence: UInt64) -> SHA256Digest {
        sequence == 0 ? .zero : SHA256.hash(Array("entry \(sequence)".utf8))
    }

    func analyze(_ lines: [JournalChainAnalysis.Line], segments: [JournalChainAnalysis.Segment]? = nil) -> JournalChainAnalysis.Result {
        let segments = segments ?? [.init(name: "00000000000000000001.jsonl", firstSequence: 1, lineCount: lines.count, byteCount: 100, endsMidLine: false)]
        return JournalChainAnalysis(segments: segments, lines: lines, computedHashes: [:], malformedReasons: [:]).analyze()
    }

    @Test func soundChainTakesTheFastPath() {
        let result = analyze((1...50).map { line($0) })
        #expect(result.findings.isEmpty)
        #expect(result.isContiguous)
        #expect(result.lastSequence == 50)
        #expect(result.lineIndex(of: 7, lineCount: 50) == 6)
    }

    @Test func longestRunKeepsMostLinesInPlace() {
        let run = JournalChainAnalysis.DamageAnalysis.longestIncreasingRun([1, 2, 9, 3, 4, 5, 6, 7, 8])
        #expect(run == [0, 1, 3, 4, 5, 6, 7, 8])
        // Two runs of equal length: the one keeping the preferred elements wins.
        let swapped: [UInt64] = [1, 2, 4, 3, 5]
        #expect(JournalChainAnalysis.DamageAnalysis.longestIncreasingRun(swapped, preferring: [true, true, true, false, true]) == [0, 1, 2, 4])
        #expect(JournalChainAnalysis.DamageAnalysis.longestIncreasingRun(swapped, preferring: [true, true, false, true, true]) == [0, 1, 3, 4])
    }

    @Test func aRewrittenMiddleEntryIsNamedOnce() {
        var lines = (1...6).map { line($0) }
        // seq 3 rewritten with a new prev and hash: both its links break.
        lines[2].previousHash = SHA256.hash(Array("forged prev".utf8))
        lines[2].hash = SHA256.hash(Array("forged".utf8))
        let result = analyze(lines)
        #expect(result.findings.map(\.kind) == [.rewrittenLine])
        #expect(result.findings.first?.line == 3)
    }

    @Test func anEmptySegmentInTheMiddle() {
        let lines = (1...4).map { line($0, segment: 0) } + (7...8).map { line($0, segment: 2, number: Int32($0 - 6)) }
        let segments: [JournalChainAnalysis.Segment] = [
            .init(name: "00000000000000000001.jsonl", firstSequence: 1, lineCount: 4, byteCount: 100, endsMidLine: false),
            .init(name: "00000000000000000005.jsonl", firstSequence: 5, lineCount: 0, byteCount: 0, endsMidLine: false),
            .init(name: "00000000000000000007.jsonl", firstSequence: 7, lineCount: 2, byteCount: 100, endsMidLine: false),
        ]
        let result = analyze(lines, segments: segments)
        #expect(result.findings.map(\.kind) == [.truncatedSegment], "\(result.findings)")
        #expect(result.findings.first?.path == "journal/00000000000000000005.jsonl")
        #expect(result.findings.first?.message.contains("is empty") == true)
    }
}
