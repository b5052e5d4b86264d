import Ferry
import Foundation
import FerryURLSession

/// Issue 18's figures: syncing through a hub folder and through an S3 hub (SeaweedFS on
/// loopback, when `weed` is found), in-process, with the requests each sync made, beside a
/// full pull from a store folder measured in the same run.
func hubBenchmarks(scale: Int, workDirectory: String, ferry: String) async throws -> [BenchmarkRow] {
    let work = workDirectory + "/hub-\(scale)"
    try? FileSystem.removeTree(work)
    _ = try FileSystem.createDirectories(work)
    let entity = try EntityName("Item")
    var rows: [BenchmarkRow] = []

    let source = try BenchData.itemStore(at: work + "/source", name: "source", count: scale)

    source.close()
    // The reference: a full pull from the store folder, as a `ferry sync` process like the
    // hub's first push and full pull below (each with its own peak memory).
    _ = try MeasuredProcess.run(ferry, ["init", work + "/folder-copy"])
    sync()
    let reference = try MeasuredProcess.run(ferry, ["sync", work + "/folder-copy", work + "/source", "--no-commit"])
    guard reference.status == 0 else { throw BenchmarkError("ferry sync (folder full pull) exited \(reference.status)") }
    let folderSeconds = reference.seconds
    rows.append(
        BenchmarkRow(
            name: "hub: reference, full pull from a folder", scale: scale, value: Format.seconds(folderSeconds),
            note: String(format: "peak %.0f MiB", reference.peakMemoryMiB)))

    // Each hub twice, side by side: plain, and encrypted (a passphrase hub, as `ferry hub init
    // --encrypt` without a store makes; the `ferry` processes get the passphrase from the
    // environment, and each new store unwraps the keys once, at scrypt cost 2^14).
    setenv(benchPassphraseVariable, benchPassphrase, 1)
    var kinds: [(name: String, location: String, make: () throws -> any HubStorage, stop: () -> Void, encrypted: Bool)] = [
        ("folder", work + "/hub-folder", { FolderHubStorage(root: work + "/hub-folder") }, {}, false),
        ("folder, encrypted", work + "/hub-folder-enc", { FolderHubStorage(root: work + "/hub-folder-enc") }, {}, true),
    ]
    if let weed = BenchSeaweedFS.executable() {
        let server = try BenchSeaweedFS.start(executable: weed, directory: work + "/weed")
        try server.createBucket("bench")
        // The `ferry` processes reach it as a user would, through the AWS variables.
        setenv("AWS_ACCESS_KEY_ID", "bench", 1)
        setenv("AWS_SECRET_ACCESS_KEY", "bench-secret", 1)
        setenv("AWS_ENDPOINT_URL_S3", server.endpoint, 1)
        setenv("AWS_REGION", "us-east-1", 1)
        kinds.append(
            ("s3", "s3://bench/hub", { S3HubStorage(location: S3Location(bucket: "bench", prefix: "hub"), client: server.client()) }, {}, false))
        kinds.append(
            ("s3, encrypted", "s3://bench/hub-enc", { S3HubStorage(location: S3Location(bucket: "bench", prefix: "hub-enc"), client: server.client()) },
             { server.stop() }, true))
    } else {
        rows.append(BenchmarkRow(name: "hub (s3): skipped", scale: scale, value: "-", note: "weed not found: run scripts/install-test-tools.sh"))
    }

    for kind in kinds {
        defer { kind.stop() }
        let label = "hub (\(kind.name))"
        if kind.encrypted {
            _ = try await Hub.createEncrypted(in: kind.make(), founder: nil, passphrase: benchPassphrase, passphraseCost: 1 << 14)
        } else {
            try await Hub.create(in: kind.make(), openToAnyWriter: true)
        }
        func hubSync(_ store: Store) async throws -> (seconds: Double, report: SyncReport) {
            let transport = HubTransport(storage: try kind.make())
            transport.passphrase = benchPassphrase
            var report: SyncReport?
            let seconds = try await Measure.seconds { report = try await SyncEngine(store: store, transport: transport).run() }
            return (seconds, report ?? SyncReport(plan: .upToDate))
        }
        // The first push and the full pull as `ferry sync` processes, from a store that has
        // synced with nothing else (a copy of the source made before any hub).
        let fresh = work + "/source-\(kind.name.replacingOccurrences(of: ", ", with: "-"))"
        _ = try MeasuredProcess.run("/bin/cp", ["-a", work + "/source", fresh])
        sync()
        let push = try MeasuredProcess.run(ferry, ["sync", fresh, kind.location, "--no-commit"])
        guard push.status == 0 else { throw BenchmarkError("ferry sync (first push to \(kind.name) hub) exited \(push.status)") }
        rows.append(
            BenchmarkRow(
                name: "\(label): first push", scale: scale, value: Format.seconds(push.seconds), target: "≤ 1.5x folder full pull",
                met: push.seconds <= 1.5 * folderSeconds,
                note: String(format: "peak %.0f MiB; ", push.peakMemoryMiB) + Format.ratio(push.seconds, folderSeconds, "folder")))
        let copyPath = work + "/copy-\(kind.name.replacingOccurrences(of: ", ", with: "-"))"
        _ = try MeasuredProcess.run(ferry, ["init", copyPath, "--name", "copy"])
        sync()
        let pull = try MeasuredProcess.run(ferry, ["sync", copyPath, kind.location, "--no-commit"])
        guard pull.status == 0 else { throw BenchmarkError("ferry sync (full pull from \(kind.name) hub) exited \(pull.status)") }
        rows.append(
            BenchmarkRow(
                name: "\(label): full pull into an empty store", scale: scale, value: Format.seconds(pull.seconds),
                target: "≤ 1.5x folder full pull", met: pull.seconds <= 1.5 * folderSeconds,
                note: String(format: "peak %.0f MiB; ", pull.peakMemoryMiB) + Format.ratio(pull.seconds, folderSeconds, "folder")))
        let source = try Store.open(at: fresh)
        let copy = try Store.open(at: copyPath)
        _ = try await hubSync(source)  // reads copy's head once

        var noops: [(Double, Int)] = []
        let noopRepeats = Measure.noOpRepeats(standard: 9)
        for _ in 0..<noopRepeats {
            let result = try await hubSync(source)
            noops.append((result.seconds, result.report.requests ?? 0))
        }
        let noop = Measure.median(noops.map(\.0))
        let noopRequests = noops.map(\.1).max() ?? 0
        rows.append(
            BenchmarkRow(
                name: "\(label): no-op sync", scale: scale, value: Format.milliseconds(noop), target: "≤ 30 ms, ≤ 2 requests",
                met: noop <= 0.030 && noopRequests <= 2, note: "\(noopRequests) request\(noopRequests == 1 ? "" : "s") (median of \(noopRepeats))"))

        var incrementals: [(Double, Int)] = []
        for round in 0..<5 {
            var writes: [RecordWrite] = []
            for index in 0..<100 {
                let number = (index * 977 + round * 13) % scale
                writes.append(
                    .put(RecordKey(entity: entity, id: try RecordID("item-\(number)")), ["name": .string("\(kind.name) v\(round)"), "n": .integer(Int64(number))]))
            }
            try copy.write(writes)
            _ = try await hubSync(copy)
            let result = try await hubSync(source)
            incrementals.append((result.seconds, result.report.requests ?? 0))
        }
        let incremental = Measure.median(incrementals.map(\.0))
        rows.append(
            BenchmarkRow(
                name: "\(label): incremental, 100 changes", scale: scale, value: Format.milliseconds(incremental), target: "≤ 100 ms",
                met: incremental <= 0.100, note: "\(incrementals.map(\.1).max() ?? 0) requests (pull side; median of 5)"))

        // Compaction, then a new replica that joins from the snapshot, both as processes.
        let compaction = try MeasuredProcess.run(ferry, ["hub", "compact", kind.location, "--json"])
        guard compaction.status == 0 else { throw BenchmarkError("ferry hub compact (\(kind.name)) exited \(compaction.status)") }
        rows.append(
            BenchmarkRow(
                name: "\(label): hub compact", scale: scale, value: Format.seconds(compaction.seconds),
                note: String(format: "peak %.0f MiB; snapshot of every record, covered segments deleted", compaction.peakMemoryMiB)))
        let joinPath = work + "/join-\(kind.name.replacingOccurrences(of: ", ", with: "-"))"
        _ = try MeasuredProcess.run(ferry, ["init", joinPath, "--name", "joined"])
        sync()
        let join = try MeasuredProcess.run(ferry, ["sync", joinPath, kind.location, "--no-commit"])
        guard join.status == 0 else { throw BenchmarkError("ferry sync (join from \(kind.name) snapshot) exited \(join.status)") }
        rows.append(
            BenchmarkRow(
                name: "\(label): join from the snapshot", scale: scale, value: Format.seconds(join.seconds),
                target: "≤ 1.5x folder full pull", met: join.seconds <= 1.5 * folderSeconds,
                note: String(format: "peak %.0f MiB; ", join.peakMemoryMiB) + Format.ratio(join.seconds, folderSeconds, "folder")))

        // Fifty replicas' heads in the hub: a sync with nothing new still lists once.
        let storage = SealedHubStorage(base: try kind.make(), access: try HubKeyAccess(store: nil, passphrase: benchPassphrase))
        _ = try await storage.list(prefix: "h")
        for _ in 0..<50 {
            let head = HubHead(replica: .generate(), name: "idle", updated: SystemClock().milliseconds())
            _ = try await storage.put(HubHead.key(of: head.replica), head.bytes, createOnly: false)
        }
        _ = try await hubSync(source)
        let crowded = try await hubSync(source)
        rows.append(
            BenchmarkRow(
                name: "\(label): no-op sync, 52 heads", scale: scale, value: Format.milliseconds(crowded.seconds), target: "≤ 2 requests",
                met: (crowded.report.requests ?? 99) <= 2, note: "\(crowded.report.requests ?? 0) requests"))
        let peak = max(push.peakMemoryMiB, pull.peakMemoryMiB, join.peakMemoryMiB)
        rows.append(
            BenchmarkRow(
                name: "\(label): peak memory of a sync", scale: scale, value: String(format: "%.0f MiB", peak), target: "≤ 200 MB",
                met: peak <= 200 * 1_000_000 / 1_048_576, note: "the largest of the first push's, the full pull's and the join's"))
        copy.close()
        source.close()
    }
    return rows
}

/// The encrypted hubs' passphrase, and where the `ferry` processes find it.
let benchPassphrase = "bench passphrase"
let benchPassphraseVariable = "FERRY_HUB_PASSPHRASE"

/// `weed mini` for the benchmark: ports of its own, S3 authentication on.
final class BenchSeaweedFS {
    let process: Process
    let endpoint: String
    let configuration: S3Configuration

    /// `$FERRY_WEED`, `.build/test-tools/bin/weed` beside this build, or `weed` on the PATH.
    static func executable() -> String? {
        var candidates: [String] = []
        if let path = ProcessInfo.processInfo.environment["FERRY_WEED"] { candidates.append(path) }
        // .build/release links to .build/<triple>/release: look two and three levels up.
        var directory = binaryDirectory
        for _ in 0..<3 {
            directory = FileSystem.parentPath(of: directory)
            candidates.append(directory + "/test-tools/bin/weed")
        }
        candidates.append(FileManager.default.currentDirectoryPath + "/.build/test-tools/bin/weed")
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/weed" }
        return candidates.first { access($0, X_OK) == 0 }
    }

    static func start(executable: String, directory: String) throws -> BenchSeaweedFS {
        _ = try FileSystem.createDirectories(directory + "/data")
        // Each port and its gRPC port (+10000) below the kernel's range for outgoing connections.
        let base = Int.random(in: 10_000...22_000)
        let config = #"{"identities":[{"name":"bench","credentials":[{"accessKey":"bench","secretKey":"bench-secret"}],"actions":["Admin","Read","Write","List"]}]}"#
        try config.write(toFile: directory + "/s3.json", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "mini", "-dir=\(directory)/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-s3.config=\(directory)/s3.json",
            "-s3.port=\(base)", "-master.port=\(base + 1)", "-volume.port=\(base + 2)", "-filer.port=\(base + 3)",
            "-admin.port=\(base + 4)", "-s3.port.iceberg=0", "-s3.port.lance=0", "-admin.ui=false", "-webdav=false",
            "-master.telemetry=false", "-volume.preStopSeconds=0",
        ]
        // weed mini turns these into credentials of its own: the identities file decides.
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AWS_") && !$0.key.hasPrefix("S3_") }
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let endpoint = "http://127.0.0.1:\(base)"
        let configuration = S3Configuration(
            credentials: AWSCredentials(accessKeyID: "bench", secretAccessKey: "bench-secret"), endpoint: URL(string: endpoint))
        let server = BenchSeaweedFS(process: process, endpoint: endpoint, configuration: configuration)
        for _ in 0..<300 {
            if server.answers() { return server }
            usleep(200_000)
        }
        server.stop()
        throw BenchmarkError("weed mini did not answer on \(endpoint)")
    }

    init(process: Process, endpoint: String, configuration: S3Configuration) {
        self.process = process
        self.endpoint = endpoint
        self.configuration = configuration
    }

    func client() -> S3Client { S3Client(configuration: configuration, httpClient: URLSessionHTTPClient()) }

    private func answers() -> Bool {
        let done = DispatchSemaphore(value: 0)
        let answered = LockedFlag()
        let client = self.client()
        Task {
            if (try? await client.listObjects(bucket: "probe-bucket", prefix: "")) != nil { answered.set() }
            do { _ = try await client.listObjects(bucket: "probe-bucket", prefix: "") } catch {
                if "\(error)".contains("HTTP") { answered.set() }
            }
            done.signal()
        }
        done.wait()
        return answered.value
    }

    func createBucket(_ name: String) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = LockedFlag()
        let client = self.client()
        Task {
            do { try await client.createBucket(name) } catch { failure.set() }
            done.signal()
        }
        done.wait()
        if failure.value { throw BenchmarkError("cannot create bucket \(name) at \(endpoint)") }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

/// A flag set from a task and read after it.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    func set() { lock.withLock { raised = true } }
    var value: Bool { lock.withLock { raised } }
}
