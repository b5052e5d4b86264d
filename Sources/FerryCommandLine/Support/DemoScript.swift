import Ferry
import Foundation

/// The story `ferry demo` tells, step by step.
struct DemoScript {
    let sampleData: String
    let directory: String
    let context: CommandContext

    private func say(_ text: String = "") { context.stdout.line(text) }
    private func step(_ number: Int, _ title: String) { say("\n\(number). \(title)") }

    func run() async throws {
        let laptopPath = directory + "/laptop"
        let phonePath = directory + "/phone"
        say("Ferry demo — working in \(directory)")

        step(1, "A store on the laptop, loaded from SampleData")
        let laptop = try Store.create(at: laptopPath, name: "laptop", options: context.storeOptions())
        defer { laptop.close() }
        let files: [(String, String)] = [
            ("important-dates/holidays.json", "Holiday"), ("important-dates/birthdays.json", "Birthday"),
            ("products.json", "Product"), ("scorebook/games.json", "Game"),
        ]
        for (file, entityName) in files {
            let entity = try EntityName(entityName)
            let items = try loadArray(file)
            var writes: [RecordWrite] = []
            for item in items {
                guard let id = DemoScript.id(of: item) else { continue }
                writes.append(.put(RecordKey(entity: entity, id: id), item))
            }
            let started = Date()
            let result = try laptop.write(writes)
            say(String(format: "   %-34@ → %3d %@ records, one batch, one fsync (%.1f ms)",
                       file as NSString, result.entries.count, entityName as NSString, Date().timeIntervalSince(started) * 1000))
        }
        let users = try importUsers(into: laptop)
        if !users.isEmpty { say(users) }
        say("   journal: \(laptop.headSequence) entries, hash-chained; latest stamp \(laptop.latestModification)")

        step(2, "Records are plain files a person can read")
        let holidayKey = RecordKey(entity: try EntityName("Holiday"), id: try RecordID("holiday-001"))
        let holidayPath = laptop.layout.recordFile(holidayKey)
        say("   $ cat laptop/\(laptop.layout.relativeRecordPath(holidayKey))")
        for line in String(decoding: try FileSystem.readFile(holidayPath), as: UTF8.self).split(separator: "\n") {
            say("   " + line)
        }

        step(3, "A hand edit is noticed (ferry status) and journaled (ferry commit)")
        var edited = try laptop.get(entity: holidayKey.entity, id: holidayKey.id) ?? [:]
        edited["details"] = "Edited by hand in a text editor."
        try FileSystem.writeFileAtomically(holidayPath, edited.prettyBytes(), durable: false)
        for edit in try laptop.status().edits { say("   status: \(edit.kind.rawValue) \(edit.path)") }
        let committed = try laptop.commit()
        say("   commit: journaled \(committed.committed.count) change; status is now \(try laptop.status().isClean ? "clean" : "dirty")")

        step(4, "The phone gets a copy: the planner picks a full pull")
        let phone = try Store.create(at: phonePath, name: "phone", options: context.storeOptions())
        defer { phone.close() }
        var report = try await phone.sync(with: FolderTransport(path: laptopPath, options: context.storeOptions()))
        say("   sync phone ↔ laptop: \(describe(report))")
        report = try await phone.sync(with: FolderTransport(path: laptopPath, options: context.storeOptions()))
        say("   again:               \(describe(report))")

        step(5, "Both edit offline")
        let product = try EntityName("Product")
        let lamp = try RecordID("1001")
        let candle = try RecordID("1002")
        let birthday = RecordKey(entity: try EntityName("Birthday"), id: try RecordID(firstID(of: "Birthday", in: phone)))
        var laptopLamp = try laptop.get(entity: product, id: lamp) ?? [:]
        laptopLamp["price"] = 149.0
        try laptop.put(laptopLamp, entity: product, id: lamp)
        say("   laptop: Product/1001 price → 149")
        var phoneLamp = try phone.get(entity: product, id: lamp) ?? [:]
        phoneLamp["price"] = 155.0
        try phone.put(phoneLamp, entity: product, id: lamp)
        say("   phone:  Product/1001 price → 155   (the same field: a conflict)")
        var phoneCandle = try phone.get(entity: product, id: candle) ?? [:]
        phoneCandle["status"] = "active"
        try phone.put(phoneCandle, entity: product, id: candle)
        say("   phone:  Product/1002 status → active")
        try phone.delete(entity: birthday.entity, id: birthday.id)
        say("   phone:  deletes \(birthday)")
        say("   laptop latest stamp \(laptop.latestModification), phone \(phone.latestModification)")

        step(6, "Sync: the planner picks an incremental exchange; the conflict is kept visible")
        report = try await laptop.sync(with: FolderTransport(path: phonePath, options: context.storeOptions()))
        say("   sync laptop ↔ phone: \(describe(report))")
        for conflict in try laptop.conflicts() {
            say("   conflict \(conflict.key): winner \(conflict.winner.identity) at \(ISO8601Milliseconds.format(milliseconds: conflict.winner.timestamp.physical))")
            for loser in conflict.losers { say("            loser  \(loser.identity), kept in \(loser.file ?? "the journal")") }
        }
        say("   Product/1002 on the laptop: status \(try laptop.get(entity: product, id: candle)?["status"]?.stringValue ?? "?")")
        say("   \(birthday) on the laptop: \(try laptop.get(entity: birthday.entity, id: birthday.id) == nil ? "deleted (the tombstone travelled)" : "still there")")

        step(7, "Resolve once, on the phone; the resolution travels back")
        _ = try await phone.sync(with: FolderTransport(path: laptopPath, options: context.storeOptions()))
        var resolved = try phone.get(entity: product, id: lamp) ?? [:]
        resolved["price"] = 152.0
        try phone.resolve(RecordKey(entity: product, id: lamp), with: resolved)
        say("   phone: ferry resolve Product 1001 with price 152")
        report = try await phone.sync(with: FolderTransport(path: laptopPath, options: context.storeOptions()))
        say("   sync phone ↔ laptop: \(describe(report))")
        report = try await laptop.sync(with: FolderTransport(path: phonePath, options: context.storeOptions()))
        say("   sync laptop ↔ phone: \(describe(report))")

        step(8, "Both replicas hold the same state")
        let (count, identical) = try compare(laptop, phone)
        say("   \(count) live records compared: \(identical ? "identical" : "DIFFERENT")")
        say("   conflicts left: laptop \(try laptop.conflicts().count), phone \(try phone.conflicts().count)")
        guard identical else { throw CLIError("the demo's replicas differ after syncing; this is a bug") }

        step(9, "A hub in a cloud-drive folder: no server, no lock; compacted, a tablet joins from its snapshot")
        let hubPath = directory + "/Dropbox/notes-hub"
        let descriptor = try await Hub.create(in: FolderHubStorage(root: hubPath))
        say("   ferry hub init: hub \(descriptor.id.short) in Dropbox/notes-hub")
        report = try await laptop.sync(with: HubTransport(folder: hubPath))
        say("   sync laptop ↔ hub: \(describe(report)), \(report.requests ?? 0) requests; the laptop is the hub's first member")
        _ = try await HubMembers.change(.add, replica: phone.replicaID, key: try phone.signingKey().publicKey, name: "phone", in: FolderHubStorage(root: hubPath), as: laptop)
        say("   ferry hub members add (from the laptop): the phone may write to the hub too")
        report = try await phone.sync(with: HubTransport(folder: hubPath))
        say("   sync phone ↔ hub: \(describe(report)), \(report.requests ?? 0) requests")
        var compactor = HubCompactor(storage: FolderHubStorage(root: hubPath))
        try compactor.sign(as: laptop)
        let compaction = try await compactor.compact()
        say("   ferry hub compact --store laptop: snapshot (signed by the laptop) of \(compaction.records) records; deleted \(AuditText.plural(compaction.deletedSegments, "segment")) every replica has read")
        let tablet = try Store.create(at: directory + "/tablet", name: "tablet", options: context.storeOptions())
        defer { tablet.close() }
        report = try await tablet.sync(with: HubTransport(folder: hubPath))
        say("   sync tablet ↔ hub: joined from the snapshot (\(report.snapshot?.recordCount ?? 0) records, not \(laptop.headSequence) journal entries); \(describe(report))")
        let verified = try await HubVerifier(storage: FolderHubStorage(root: hubPath)).verify()
        say("   ferry verify hub: \(verified.isClean ? "ok" : "FINDINGS"), \(verified.snapshots) snapshot checked against the segments it covers")
        let (tabletCount, tabletIdentical) = try compare(laptop, tablet)
        say("   \(tabletCount) live records compared with the laptop: \(tabletIdentical ? "identical" : "DIFFERENT")")
        guard tabletIdentical, verified.isClean, report.snapshot != nil else {
            throw CLIError("the demo's tablet did not join the hub as expected; this is a bug")
        }
    }

    private func describe(_ report: SyncReport) -> String {
        "plan \(report.plan.rawValue), pulled \(report.pulled), pushed \(report.pushed), \(report.conflicts.count) conflict\(report.conflicts.count == 1 ? "" : "s")"
    }

    private func loadArray(_ file: String) throws -> [JSONValue] {
        let bytes = try FileSystem.readFile(sampleData + "/" + file)
        guard let items = try DocumentInput.parse(bytes, source: file).arrayValue else {
            throw CLIError("\(file): expected a JSON array")
        }
        return items
    }

    private func firstID(of entity: String, in store: Store) throws -> String {
        guard let id = try store.ids(of: EntityName(entity)).first else { throw CLIError("no \(entity) records") }
        return id.rawValue
    }

    static func id(of item: JSONValue) -> RecordID? {
        switch item["id"] {
        case .string(let text)?: return try? RecordID(text)
        case .integer(let number)?: return try? RecordID(String(number))
        default: return nil
        }
    }

    /// Compares every live record of two stores.
    private func compare(_ a: Store, _ b: Store) throws -> (Int, Bool) {
        let entitiesA = try a.entities().map(\.entity)
        let entitiesB = try b.entities().map(\.entity)
        guard entitiesA == entitiesB else { return (0, false) }
        var count = 0
        for entity in entitiesA {
            let recordsA = try a.records(of: entity)
            let recordsB = try b.records(of: entity)
            guard recordsA.count == recordsB.count else { return (count, false) }
            for (left, right) in zip(recordsA, recordsB) {
                guard left.id == right.id, left.document == right.document else { return (count, false) }
                count += 1
            }
        }
        return (count, true)
    }

    /// Imports the API-style users (with their nested companies and notes) through the store's
    /// schema, then a later response of the same endpoint; returns the lines to print.
    private func importUsers(into store: Store) throws -> String {
        try FileSystem.writeFileAtomically(
            store.layout.schema, try FileSystem.readFile(sampleData + "/schema.json"), durable: false)
        let users = try EntityName("User")
        var lines: [String] = []
        for file in ["users.json", "users-update.json"] {
            let started = Date()
            let report = try store.importRecords(try FileSystem.readFile(sampleData + "/" + file), into: users)
            let perEntity = report.countsByEntity.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }
            lines.append(
                String(format: "   %-34@ → import: %@; %d journal entries (%.1f ms)", file as NSString,
                       perEntity.joined(separator: "; ") as NSString, report.journalEntries, Date().timeIntervalSince(started) * 1000))
        }
        return lines.joined(separator: "\n")
    }

    /// Finds SampleData: the option, `$FERRY_SAMPLE_DATA`, the working directory, or next to the
    /// package the binary was built in.
    static func locateSampleData(_ option: String?, context: CommandContext) throws -> String {
        var candidates: [String] = []
        if let option { candidates.append(context.absolutePath(option)) }
        if let environment = context.environment["FERRY_SAMPLE_DATA"] { candidates.append(context.absolutePath(environment)) }
        candidates.append(context.currentDirectory + "/SampleData")
        var binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            candidates.append(binary.path + "/SampleData")
            binary = binary.deletingLastPathComponent()
        }
        for candidate in candidates where FileSystem.isDirectory(candidate) && FileSystem.exists(candidate + "/products.json") {
            return candidate
        }
        throw CLIError("cannot find SampleData; run from the package folder or pass --sample-data <path>")
    }

    static func makeTemporaryDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory().replacingOccurrences(of: "//", with: "/") + (NSTemporaryDirectory().hasSuffix("/") ? "" : "/") + "ferry-demo-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw CLIError("cannot make a temporary directory") }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
