import Ferry
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real SeaweedFS S3 server on loopback, for tests: `weed mini` (master, volume, filer and
/// S3 in one process) with a data folder, ports and credentials of the test's own.
///
/// What `weed mini` 4.48 does, as found by running it: S3 answers about 1 s after start; it
/// listens on the master, volume, filer, S3 and admin ports and on each one's gRPC port (the
/// port + 10000), and on the Iceberg (8181) and Lance (9101) ports unless told otherwise, so
/// every one is set here; `-s3.config` with an identities file turns authentication on (a
/// wrong secret gets 403 `SignatureDoesNotMatch`); a PUT with `If-None-Match: *` on an
/// existing key gets 412 `PreconditionFailed`; ETags in ListObjectsV2 come as `&#34;…&#34;`.
///
/// ```swift
/// guard let weed = try SeaweedFS.availableOrSkip() else { return }
/// let server = try await SeaweedFS.start(in: directory.path, executable: weed)
/// try await server.createBucket("hub")
/// ```
public final class SeaweedFS: @unchecked Sendable {
    public let endpoint: String
    public let accessKey = "ferrytest"
    public let secretKey = "ferry-test-secret"
    public let region = "us-east-1"
    private let executable: String
    private let directory: String
    private let basePort: Int
    private let lock = NSLock()
    private var process: ChildProcess?

    /// The `weed` binary: `$FERRY_WEED`, else `.build/test-tools/bin/weed` (scripts/install-test-tools.sh),
    /// else `weed` on the PATH; `nil` when there is none.
    public static var executable: String? {
        if let path = ProcessInfo.processInfo.environment["FERRY_WEED"], access(path, X_OK) == 0 { return path }
        let local = packageRoot + "/.build/test-tools/bin/weed"
        if access(local, X_OK) == 0 { return local }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/weed"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The package's root folder (the one holding Package.swift).
    static var packageRoot: String {
        var path = FileSystem.parentPath(of: #filePath)
        while path.count > 1 && !FileSystem.exists(path + "/Package.swift") { path = FileSystem.parentPath(of: path) }
        return path
    }

    private static let skipNotice = SkipNotice()

    /// The `weed` binary, or `nil` after printing, once per process, the line that says how
    /// to enable the S3 tests. With `FERRY_REQUIRE_S3=1` (as `.ci/run` sets) a missing
    /// binary is an error instead.
    public static func availableOrSkip() throws -> String? {
        if let executable { return executable }
        let message = "S3 tests skipped: weed (SeaweedFS) not found; run scripts/install-test-tools.sh to enable them"
        if ProcessInfo.processInfo.environment["FERRY_REQUIRE_S3"] == "1" {
            throw SeaweedFSError(message: "FERRY_REQUIRE_S3=1 but weed was not found; run scripts/install-test-tools.sh")
        }
        skipNotice.printOnce(message)
        return nil
    }

    /// Starts a server with its data under `directory` and waits until S3 answers.
    public static func start(in directory: String, executable: String) async throws -> SeaweedFS {
        let server = SeaweedFS(executable: executable, directory: directory, basePort: try freePortBlock())
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        let config = #"{"identities":[{"name":"ferry","credentials":[{"accessKey":"\#(server.accessKey)","secretKey":"\#(server.secretKey)"}],"actions":["Admin","Read","Write","List","Tagging"]}]}"#
        try config.write(toFile: directory + "/s3.json", atomically: true, encoding: .utf8)
        try await server.launch()
        return server
    }

    private init(executable: String, directory: String, basePort: Int) {
        self.executable = executable
        self.directory = directory
        self.basePort = basePort
        self.endpoint = "http://127.0.0.1:\(basePort)"
    }

    deinit { stop() }

    private func launch() async throws {
        let p = basePort
        let arguments = [
            "mini", "-dir=\(directory)/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-s3.config=\(directory)/s3.json",
            "-s3.port=\(p)", "-master.port=\(p + 1)", "-volume.port=\(p + 2)", "-filer.port=\(p + 3)", "-admin.port=\(p + 4)",
            "-s3.port.iceberg=\(p + 5)", "-s3.port.lance=\(p + 6)", "-admin.ui=false", "-webdav=false",
            "-filer.localSocket=\(directory)/filer.sock", "-s3.localSocket=\(directory)/s3.sock",
        ]
        let logs = directory + "/logs-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        let child = try ChildProcess(executable, arguments, outputDirectory: logs)
        lock.withLock { process = child }
        // Up when an unsigned request gets S3's answer (403 with auth on); 60 s at most.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if child.hasExited {
                throw SeaweedFSError(message: "weed mini exited at start: \(String(child.errorOutput.suffix(2000)))")
            }
            if let status = try? await Self.status(of: endpoint + "/"), status > 0 { return }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        child.kill()
        throw SeaweedFSError(message: "weed mini did not answer on \(endpoint) within 60 s: \(String(child.errorOutput.suffix(2000)))")
    }

    /// Stops the server (SIGTERM, then SIGKILL after 5 s).
    public func stop() {
        guard let child = lock.withLock({ () -> ChildProcess? in
            defer { process = nil }
            return process
        }) else { return }
        child.kill(SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while !child.hasExited && Date() < deadline { usleep(50_000) }
        if !child.hasExited { child.kill(SIGKILL) }
        child.wait()
    }

    /// Kills the server at once, as a crash or a pulled cable would.
    public func kill() {
        guard let child = lock.withLock({ () -> ChildProcess? in
            defer { process = nil }
            return process
        }) else { return }
        child.kill(SIGKILL)
        child.wait()
    }

    /// Starts the server again on the same ports and data.
    public func restart() async throws {
        stop()
        try await launch()
    }

    /// Creates a bucket (curl signs the request).
    public func createBucket(_ name: String) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", "--aws-sigv4", "aws:amz:\(region):s3",
            "--user", "\(accessKey):\(secretKey)", "\(endpoint)/\(name)",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let code = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard code == "200" else { throw SeaweedFSError(message: "creating bucket \(name) answered HTTP \(code)") }
    }

    /// The credentials and endpoint as an ``S3Configuration``.
    public var configuration: S3Configuration {
        S3Configuration(
            credentials: AWSCredentials(accessKeyID: accessKey, secretAccessKey: secretKey), region: region,
            endpoint: URL(string: endpoint))
    }

    /// The environment variables a `ferry` process needs to reach this server.
    public var environment: [String: String] {
        ["AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secretKey, "AWS_REGION": region, "AWS_ENDPOINT_URL_S3": endpoint]
    }

    /// A base port whose block (base…base+6) and gRPC block (+10000) are all free.
    static func freePortBlock() throws -> Int {
        for _ in 0..<200 {
            let base = Int.random(in: 20_000...29_000)
            let ports = (0...6).flatMap { [base + $0, base + $0 + 10_000] }
            if ports.allSatisfy(isFree) { return base }
        }
        throw SeaweedFSError(message: "no free block of loopback ports found")
    }

    private static func isFree(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        } == 0
    }

    /// The HTTP status of a plain GET, `nil` when nothing answers.
    static func status(of url: String) async throws -> Int? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-s", "-o", "/dev/null", "-m", "2", "-w", "%{http_code}", url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        return Int(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)).flatMap { $0 == 0 ? nil : $0 }
    }
}

/// Why a SeaweedFS server could not be used.
public struct SeaweedFSError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Prints a line once per process.
final class SkipNotice: @unchecked Sendable {
    private let lock = NSLock()
    private var printed = false

    func printOnce(_ line: String) {
        let first = lock.withLock { () -> Bool in
            defer { printed = true }
            return !printed
        }
        if first { print(line) }
    }
}
