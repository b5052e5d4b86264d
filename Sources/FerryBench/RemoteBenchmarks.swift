import Ferry
import Foundation
import FerryURLSession

/// Sync over HTTP against `ferry serve`'s handler on a loopback port, measured in-process:
/// full pull of `scale` records beside the folder full pull of the same store, an incremental
/// sync of 100 changed records, and no-op syncs per second from concurrent clients.
///
/// - Parameters:
///   - scale: records in the served store.
///   - workDirectory: a folder for the stores; they stay until the run's work directory is
///     removed at its end.
/// - Returns: one row per figure, with the issue's targets.
func remoteBenchmarks(scale: Int, workDirectory: String) async throws -> [BenchmarkRow] {
    let work = workDirectory + "/remote-\(scale)"
    try? FileSystem.removeTree(work)
    _ = try FileSystem.createDirectories(work + "/server")
    let entity = try EntityName("Item")
    var rows: [BenchmarkRow] = []

    // The served store.
    let source = try BenchData.itemStore(at: work + "/server/bench", name: "bench", count: scale)
    source.close()

    // Folder full pull, as the reference.
    let folderCopy = try Store.create(at: work + "/folder-copy")
    let folderSeconds = try await Measure.seconds {
        _ = try await SyncEngine(store: folderCopy, transport: FolderTransport(path: work + "/server/bench")).run()
    }
    folderCopy.close()

    let token = "bench-token-0123456789"
    let service = StoreService(root: work + "/server", policy: .single(token: token))
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    configuration.maximumConnections = 512
    let server = HTTPServer(configuration: configuration, handler: service)
    let port = try server.start()
    defer { service.close() }
    let url = "http://127.0.0.1:\(port)/bench"
    let sharedClient = URLSessionHTTPClient(connectionsPerHost: 64)

    // HTTP full pull.
    let remoteCopy = try Store.create(at: work + "/remote-copy")
    let remoteSeconds = try await Measure.seconds {
        let transport = try HTTPTransport(url: url, token: token, client: sharedClient)
        _ = try await SyncEngine(store: remoteCopy, transport: transport).run()
    }
    let ratio = remoteSeconds / max(folderSeconds, 1e-9)
    rows.append(BenchmarkRow(
        name: "remote full pull", scale: scale, value: Format.seconds(remoteSeconds), target: "≤ 2x folder", met: ratio <= 2,
        note: String(format: "%.2fx folder full pull (%.3f s)", ratio, folderSeconds)))

    // Incremental sync of 100 changed records (pushed), median of 5.
    var samples: [Double] = []
    for round in 0..<5 {
        var writes: [RecordWrite] = []
        for index in 0..<100 {
            let id = try RecordID("item-\((round * 997 + index * 31) % max(scale, 1))")
            writes.append(.put(RecordKey(entity: entity, id: id), ["name": "changed", "round": .integer(Int64(round))]))
        }
        try remoteCopy.write(writes)
        samples.append(try await Measure.seconds {
            let transport = try HTTPTransport(url: url, token: token, client: sharedClient)
            _ = try await SyncEngine(store: remoteCopy, transport: transport).run()
        })
    }
    let incremental = Measure.median(samples)
    rows.append(BenchmarkRow(
        name: "remote incremental sync, 100 changes", scale: scale, value: Format.milliseconds(incremental),
        target: "≤ 150 ms", met: incremental <= 0.150, note: "median of 5, pushed over HTTP"))
    remoteCopy.close()

    // No-op syncs per second: concurrent clients, each a small store already in sync.
    let clients = 16
    let small = try Store.create(at: work + "/noop-seed")
    for index in 0..<10 { _ = try small.put(["n": .integer(Int64(index))], entity: entity, id: RecordID("\(index)")) }
    _ = try await SyncEngine(store: small, transport: HTTPTransport(url: "http://127.0.0.1:\(port)/noop", token: token)).run()
    small.close()
    var replicas: [Store] = []
    for index in 0..<clients {
        let replica = try Store.create(at: work + "/noop-\(index)")
        _ = try await SyncEngine(
            store: replica, transport: HTTPTransport(url: "http://127.0.0.1:\(port)/noop", token: token, client: sharedClient)
        ).run()
        replicas.append(replica)
    }
    let duration = 3.0
    let started = DispatchTime.now().uptimeNanoseconds
    let deadline = started + UInt64(duration * 1e9)
    let counts = try await withThrowingTaskGroup(of: Int.self) { group in
        for replica in replicas {
            group.addTask {
                // One session per client, as separate devices would have: a session's requests
                // share one libcurl multi handle, which would serialize them.
                let client = URLSessionHTTPClient(connectionsPerHost: 2)
                var count = 0
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    let transport = try HTTPTransport(url: "http://127.0.0.1:\(port)/noop", token: token, client: client)
                    let report = try await SyncEngine(store: replica, transport: transport).run()
                    guard report.plan == .upToDate else { throw RemoteBenchmarkError.notUpToDate }
                    count += 1
                }
                return count
            }
        }
        return try await group.reduce(0, +)
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    let rate = Double(counts) / elapsed
    rows.append(BenchmarkRow(
        name: "remote no-op syncs", scale: scale, value: String(format: "%.0f syncs/s", rate), target: "≥ 2,000/s",
        met: rate >= 2_000, note: "\(clients) concurrent clients, one server, \(counts) syncs in \(String(format: "%.1f", elapsed)) s"))
    for replica in replicas { replica.close() }
    await server.stop()
    return rows
}

/// A no-op sync that was not `up-to-date`: the benchmark measured the wrong thing.
enum RemoteBenchmarkError: Error, CustomStringConvertible {
    case notUpToDate
    var description: String { "a no-op sync did not plan up-to-date" }
}
