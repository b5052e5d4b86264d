import Ferry
import FerryURLSession
import Foundation

/// Two-way sync with a real PocketBase on loopback (`pocketbase` from
/// scripts/install-test-tools.sh, or $FERRY_POCKETBASE, or on the PATH), requests counted:
/// full push and full pull of `scale` records, a plain paginated listing of the same records
/// with curl (perPage 1000) beside the pull, a no-op sync, and an incremental sync of 100
/// changes. Skipped, with a line saying so, when there is no `pocketbase`.
func backendBenchmarks(scale: Int, workDirectory: String) async throws -> [BenchmarkRow] {
    guard let binary = PocketBaseProcess.executable else {
        print("backend: skipped, no pocketbase (run scripts/install-test-tools.sh)")
        return []
    }
    let work = workDirectory + "/backend-\(scale)"
    try? FileSystem.removeTree(work)
    _ = try FileSystem.createDirectories(work)
    let server = try PocketBaseProcess.start(binary: binary, directory: work + "/pb")
    defer { server.stop() }
    let location = try PocketBaseLocation(parsing: "pocketbase+" + server.baseURL)
    let http = URLSessionHTTPClient(connectionsPerHost: 16)
    let admin = PocketBaseClient(
        location: location, credentials: .password(email: server.email, password: server.password, collection: PocketBaseCredentials.superuserCollection),
        httpClient: http)
    var setup = PocketBaseSetup(collections: [.init(name: "Item", fields: ["name": .text, "price": .number, "tags": .json, "note": .text])])
    setup.syncUser = ("bench@example.com", "bench-password-1", "users")
    setup.enableBatch = true  // pushes write 50 records per request
    _ = try await setup.run(with: admin)
    let credentials = PocketBaseCredentials.password(email: "bench@example.com", password: "bench-password-1", collection: "users")
    let entity = try EntityName("Item")
    func backendSync(_ store: Store, client: PocketBaseClient) async throws -> SyncReport {
        let peer = BackendPeer(backend: PocketBaseBackend(client: client), options: .init(entities: [entity]))
        return try await SyncEngine(store: store, transport: peer).run()
    }
    var rows: [BenchmarkRow] = []

    // Full push.
    let source = try BenchData.itemStore(at: work + "/source", name: "source", count: scale)
    var pushReport: SyncReport?
    let pushSeconds = try await Measure.seconds {
        pushReport = try await backendSync(source, client: PocketBaseClient(location: location, credentials: credentials, httpClient: http))
    }
    guard pushReport?.pushed == scale else { throw BackendBenchmarkError.wrongCount("pushed \(pushReport?.pushed ?? 0) of \(scale)") }
    rows.append(BenchmarkRow(
        name: "backend full push", scale: scale, value: Format.seconds(pushSeconds),
        note: "\(pushReport?.requests ?? 0) requests, \(String(format: "%.0f", Double(scale) / pushSeconds)) records/s, batches of 50"))

    // A plain paginated listing with curl, as the reference for the pull.
    let token = try await { () async throws -> String in
        let client = PocketBaseClient(location: location, credentials: credentials, httpClient: http)
        try await client.signIn()
        return client.token ?? ""
    }()
    let pages = (scale + 999) / 1000
    let script = "for p in $(seq 1 \(pages)); do curl -sf -o /dev/null -H \"Authorization: $T\" \"\(server.baseURL)/api/collections/Item/records?page=$p&perPage=1000&skipTotal=1\" || exit 1; done"
    let curlSeconds = try Measure.seconds {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.environment = ProcessInfo.processInfo.environment.merging(["T": token]) { $1 }
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BackendBenchmarkError.wrongCount("curl listing failed") }
    }

    // Full pull into an empty store, signed in before (as curl is given its token).
    let copy = try Store.create(at: work + "/copy", name: "copy")
    let puller = PocketBaseClient(location: location, credentials: credentials, httpClient: http)
    _ = try await puller.signIn()
    var pullReport: SyncReport?
    sync()
    let pullSeconds = try await Measure.seconds {
        pullReport = try await backendSync(copy, client: puller)
    }
    guard pullReport?.pulled == scale else { throw BackendBenchmarkError.wrongCount("pulled \(pullReport?.pulled ?? 0) of \(scale)") }
    let ratio = pullSeconds / max(curlSeconds, 1e-9)
    // What writing the pulled records' files costs on this disk by itself: rsync -a of the
    // pulled store's records tree, in the same run.
    var rsyncNote = ""
    if let rsync = MeasuredProcess.find("rsync") {
        sync()
        let copied = try MeasuredProcess.run(rsync, ["-a", work + "/copy/records/", work + "/rsync-copy/"])
        rsyncNote = "; rsync -a of the pulled records \(Format.seconds(copied.seconds)) (" + Format.ratio(pullSeconds, copied.seconds, "rsync") + ")"
    }
    rows.append(BenchmarkRow(
        name: "backend full pull", scale: scale, value: Format.seconds(pullSeconds), target: "≤ 1.5x curl listing", met: ratio <= 1.5,
        note: String(format: "%.2fx curl, perPage 1000 (%.3f s, %d requests); %d requests, signed in before as curl", ratio, curlSeconds, pages, pullReport?.requests ?? 0) + rsyncNote))

    // No-op sync, with the session of an earlier sync (a CLI run signs in once more). It
    // starts after the overlap window (2 s) of the last writes: a sync within it reads the
    // records written in those 2 s again, by design (late commits).
    let session = PocketBaseClient(location: location, credentials: credentials, httpClient: http)
    _ = try await backendSync(copy, client: session)
    try await Task.sleep(nanoseconds: 2_100_000_000)
    var noopSamples: [Double] = []
    var noopRequests = 0
    let noopRepeats = Measure.noOpRepeats(standard: 5)
    for _ in 0..<noopRepeats {
        let before = session.requestCount
        noopSamples.append(try await Measure.seconds { _ = try await backendSync(copy, client: session) })
        noopRequests = session.requestCount - before
    }
    let noop = Measure.median(noopSamples)
    rows.append(BenchmarkRow(
        name: "backend no-op sync", scale: scale, value: Format.milliseconds(noop), target: "≤ 30 ms, ≤ 2 requests",
        met: noop <= 0.030 && noopRequests <= 2, note: "median of \(noopRepeats), \(noopRequests) requests (one listing, one count)"))

    // Incremental sync of 100 changes made here.
    var samples: [Double] = []
    var requests = 0
    let rounds = Int(ProcessInfo.processInfo.environment["FERRY_BENCH_INCREMENTALS"] ?? "").map { max(1, $0) } ?? 5
    for round in 0..<rounds {
        var writes: [RecordWrite] = []
        for index in 0..<100 {
            let id = try RecordID("item-\((round * 997 + index * 31) % max(scale, 1))")
            writes.append(.put(RecordKey(entity: entity, id: id), ["name": .string("changed \(round)"), "price": .integer(Int64(round)), "tags": [], "note": ""]))
        }
        try copy.write(writes)
        let before = session.requestCount
        var report: SyncReport?
        samples.append(try await Measure.seconds { report = try await backendSync(copy, client: session) })
        guard report?.pushed == 100 else { throw BackendBenchmarkError.wrongCount("pushed \(report?.pushed ?? 0) of 100") }
        requests = session.requestCount - before
    }
    let incremental = Measure.median(samples)
    rows.append(BenchmarkRow(
        name: "backend incremental sync, 100 changes", scale: scale, value: Format.milliseconds(incremental), target: "≤ 100 ms",
        met: incremental <= 0.100, note: "median of \(rounds), pushed; \(requests) requests"))

    // What the rules cost PocketBase: the same incremental sync, alternating between the
    // rules setup writes (the collection closed to the sync user; updates conditional on
    // ferry_rev and on `updated`, which refuses a write over an edit that kept ferry_rev) and
    // the rules setups wrote before those (any signed-in user; revision only). The first sync
    // after the rules change is not measured: PocketBase reloads the collection.
    let setupRules = try await admin.collection(named: "Item") ?? [:]
    let signedIn = "@request.auth.id != \"\""
    let earlierRules: [String: JSONValue] = [
        "listRule": .string(signedIn), "viewRule": .string(signedIn), "createRule": .string(signedIn), "deleteRule": .string(signedIn),
        "updateRule": .string(signedIn + " && " + PocketBaseSetup.revisionOnlyCompareAndSet),
    ]
    let ruleNames = ["listRule", "viewRule", "createRule", "updateRule", "deleteRule"]
    var setupRuleValues: [String: JSONValue] = [:]
    for name in ruleNames { setupRuleValues[name] = setupRules[name] ?? .null }
    var byRules: [Bool: [Double]] = [:]
    for round in 0..<(4 * rounds) {
        let earlier = round % 4 >= 2
        if round % 2 == 0 { _ = try await admin.updateCollection("Item", earlier ? earlierRules : setupRuleValues) }
        var writes: [RecordWrite] = []
        for index in 0..<100 {
            let id = try RecordID("item-\((round * 991 + index * 37 + 5) % max(scale, 1))")
            writes.append(.put(RecordKey(entity: entity, id: id), ["name": .string("rule \(round)"), "price": .integer(Int64(round)), "tags": [], "note": ""]))
        }
        try copy.write(writes)
        var report: SyncReport?
        let seconds = try await Measure.seconds { report = try await backendSync(copy, client: session) }
        guard report?.pushed == 100 else { throw BackendBenchmarkError.wrongCount("pushed \(report?.pushed ?? 0) of 100") }
        if round % 2 == 1 { byRules[earlier, default: []].append(seconds) }
    }
    _ = try await admin.updateCollection("Item", setupRuleValues)
    let withSetupRules = Measure.median(byRules[false] ?? []), withEarlierRules = Measure.median(byRules[true] ?? [])
    rows.append(BenchmarkRow(
        name: "backend incremental, earlier rules", scale: scale, value: Format.milliseconds(withEarlierRules),
        note: "median of \(rounds), any signed-in user, revision-only compare-and-set; \(Format.milliseconds(withSetupRules)) with setup's rules, "
            + "alternating (" + Format.ratio(withSetupRules, withEarlierRules, "earlier rules") + ")"))
    source.close()
    copy.close()
    return rows
}

enum BackendBenchmarkError: Error, CustomStringConvertible {
    case wrongCount(String)
    case server(String)
    var description: String {
        switch self {
        case .wrongCount(let what): return "backend benchmark: \(what)"
        case .server(let what): return "backend benchmark: \(what)"
        }
    }
}

/// A PocketBase for the benchmark: its own data folder and a free loopback port.
final class PocketBaseProcess {
    let baseURL: String
    let email = "admin@example.com"
    let password = "superuser-password-0123"
    private let process: Process

    static var executable: String? {
        let environment = ProcessInfo.processInfo.environment
        var candidates = [environment["FERRY_POCKETBASE"] ?? "", FileManager.default.currentDirectoryPath + "/.build/test-tools/bin/pocketbase"]
        candidates += (environment["PATH"] ?? "").split(separator: ":").map { "\($0)/pocketbase" }
        return candidates.first { !$0.isEmpty && FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func start(binary: String, directory: String) throws -> PocketBaseProcess {
        _ = try FileSystem.createDirectories(directory)
        let upsert = Process()
        upsert.executableURL = URL(fileURLWithPath: binary)
        upsert.arguments = ["superuser", "upsert", "admin@example.com", "superuser-password-0123", "--dir", directory + "/data"]
        upsert.standardOutput = FileHandle.nullDevice
        try upsert.run()
        upsert.waitUntilExit()
        let probe = try Socket.listen(host: "127.0.0.1", port: 0)
        let port = try probe.localAddress().port
        probe.close()
        let serve = Process()
        serve.executableURL = URL(fileURLWithPath: binary)
        serve.arguments = ["serve", "--http", "127.0.0.1:\(port)", "--dir", directory + "/data"]
        serve.standardOutput = FileHandle.nullDevice
        serve.standardError = FileHandle.nullDevice
        try serve.run()
        let server = PocketBaseProcess(baseURL: "http://127.0.0.1:\(port)", process: serve)
        for _ in 0..<300 {
            if let socket = try? Socket.connect(host: "127.0.0.1", port: port) {
                socket.close()
                return server
            }
            usleep(50_000)
        }
        server.stop()
        throw BackendBenchmarkError.server("pocketbase did not answer on \(server.baseURL)")
    }

    private init(baseURL: String, process: Process) {
        self.baseURL = baseURL
        self.process = process
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
