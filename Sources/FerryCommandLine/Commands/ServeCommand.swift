import Dispatch
import Ferry
import Foundation

/// `ferry serve <root>`: hosts every store under a folder over HTTP, for `ferry sync` with an
/// `http://HOST:PORT/<name>` peer.
enum ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Serve every store under a folder over HTTP, for 'ferry sync'.",
        discussion: """
            Each store folder under <root> is reachable as http://HOST:PORT/<name>; a push to a \
            name that does not exist yet creates that store when the token may write. Requests \
            need 'Authorization: Bearer <token>'. Without --tokens, one read-write token for every \
            store is taken from $FERRY_TOKEN when it is set (at least 16 characters), as 'ferry sync' \
            takes it, or else made at random and printed once at start. --no-auth turns authentication \
            off and is refused unless the host is loopback. Put a TLS proxy (nginx) in front \
            to serve beyond this machine: see docs/DEPLOY.md.

            Prints the address (and the token) on standard output, then one line per request on \
            standard error: method, path, status, bytes, time and the client's address (behind a \
            proxy named with --trust-proxy, the address its X-Forwarded-For gives). SIGINT or SIGTERM stops it gracefully: requests under way finish, \
            then it exits 0.

            Examples:
              ferry serve ./stores
              ferry serve /srv/ferry --host 0.0.0.0 --port 8443 --tokens /etc/ferry/tokens.json
              ferry sync ./laptop http://127.0.0.1:8080/alice --token $TOKEN
            """,
        arguments: [.required("root", help: "The folder holding one store folder per name.")],
        options: [
            .value("host", valueName: "address", help: "The address to listen on.", default: "127.0.0.1"),
            .value("port", short: "p", valueName: "port", help: "The TCP port (0 picks a free one).", default: "8080"),
            .value("tokens", valueName: "file", help: "A JSON tokens file (see docs/PROTOCOL.md)."),
            .flag("no-auth", help: "Serve without tokens (loopback hosts only)."),
            .value("max-body-mb", valueName: "MiB", help: "The largest request body accepted.", default: "64"),
            .value("max-connections", valueName: "count", help: "The most connections served at once.", default: "256"),
            .value(
                "max-connections-per-address", valueName: "count",
                help: "The most connections one client address may hold (trusted proxies are not capped).", default: "64"),
            .value(
                "max-connections-per-token", valueName: "count",
                help: "The most connections whose requests present one token.", default: "64"),
            .value("body-budget-mb", valueName: "MiB", help: "The request bodies (as received and parsed) all clients may hold at once.", default: "256"),
            .value(
                "body-budget-per-client-mb", valueName: "MiB",
                help: "The share of the body budget one address (or IPv6 /64), and one token, may hold.", default: "128"),
            .value(
                "min-body-rate-kb", valueName: "KiB/s",
                help: "The slowest a request body may arrive on average, after a 3 s grace (408 beyond).", default: "16"),
            .value(
                "trust-proxy", valueName: "addresses",
                help: "Reverse proxies in front (comma-separated, e.g. 127.0.0.1): the log names the client from their X-Forwarded-For."),
        ],
        examples: ["FERRY_TOKENS=tokens.json ferry serve ./stores --port 8080"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let root = context.absolutePath(try arguments.requiredPositional("root"))
        let host = arguments.option("host") ?? "127.0.0.1"
        let port = try arguments.integer("port", in: 0...65_535) ?? 8080
        let bodyLimit = try arguments.integer("max-body-mb", in: 1...4096) ?? 64
        let connections = try arguments.integer("max-connections", in: 1...10_000) ?? 256
        let perAddress = try arguments.integer("max-connections-per-address", in: 1...10_000) ?? 64
        guard FileSystem.isDirectory(root) else {
            throw CLIError("\(root) is not a folder; create it (mkdir) or name the folder that holds your stores")
        }
        let policy: AccessPolicy
        var printedToken: String?
        var tokenFromEnvironment = false
        if arguments.flag("no-auth") {
            guard arguments.option("tokens") == nil else {
                throw arguments.usageError("'--no-auth' and '--tokens' cannot be used together")
            }
            guard isLoopback(host) else {
                throw CLIError("--no-auth is only allowed on a loopback host (127.0.0.1, ::1, localhost), not \(host)")
            }
            policy = .open
        } else if let file = arguments.option("tokens") {
            let path = context.absolutePath(file)
            let bytes: [UInt8]
            do { bytes = try FileSystem.readFile(path, limit: 16 << 20) } catch {
                throw CLIError("cannot read the tokens file: \(error)")
            }
            do { policy = try AccessPolicy(tokensFile: bytes) } catch { throw CLIError("\(path): \(error)") }
        } else if let token = context.environment["FERRY_TOKEN"], !token.isEmpty {
            guard token.utf8.count >= 16, token.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw CLIError("FERRY_TOKEN must be at least 16 characters without spaces; unset it to get a random token")
            }
            policy = .single(token: token)
            tokenFromEnvironment = true
        } else {
            let token = try randomToken()
            policy = .single(token: token)
            printedToken = token
        }

        let stderr = context.stderr
        let log: @Sendable (String) -> Void = { line in stderr.line(line) }
        var storeOptions = context.storeOptions()
        storeOptions.warningHandler = log
        // Descriptors: one per connection, one per feed subscriber, two or three per open store.
        // Raise the soft limit to the hard one; subscribers (idle, on the feed's one thread, not
        // counted as connections) get up to 20,000 of what is left (three quarters at most), the
        // stores the rest.
        let files = OpenFileLimit.raiseToHardLimit()
        let spare = Int(clamping: files.after) - 2 * connections - 64
        var feed = ChangeFeedHub.Configuration()
        feed.maximumSubscribers = max(16, min(feed.maximumSubscribers, spare / 4 * 3))
        let openStores = max(8, min(4096, (spare - feed.maximumSubscribers) / 3))
        stderr.line(
            "ferry serve: open files limit \(files.after)\(files.after > files.before ? " (raised from \(files.before))" : ""); "
                + "keeping at most \(openStores) stores open and \(feed.maximumSubscribers) feed subscribers")
        let service = StoreService(
            root: root, policy: policy, storeOptions: storeOptions, maximumOpenStores: openStores, feed: feed, log: log)
        var configuration = HTTPServerConfiguration(host: host, port: port)
        configuration.maximumBodyBytes = bodyLimit << 20
        configuration.maximumConnections = connections
        configuration.maximumConnectionsPerAddress = perAddress
        if let count = try arguments.integer("max-connections-per-token", in: 1...100_000) {
            configuration.maximumConnectionsPerToken = count
        }
        if let megabytes = try arguments.integer("body-budget-mb", in: 1...65_536) { configuration.bodyBudgetBytes = megabytes << 20 }
        if let megabytes = try arguments.integer("body-budget-per-client-mb", in: 1...65_536) {
            configuration.bodyBudgetBytesPerClient = megabytes << 20
        }
        if let kilobytes = try arguments.integer("min-body-rate-kb", in: 1...1_048_576) {
            configuration.minimumBodyBytesPerSecond = kilobytes << 10
        }
        if let text = arguments.option("trust-proxy") {
            configuration.trustedProxies = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        let server = HTTPServer(configuration: configuration, handler: service, log: log)

        let signals = TerminationSignals { number in
            stderr.line("ferry serve: stopping (signal \(number))")
            Task { await server.stop() }
        }
        defer { signals.cancel() }

        let bound = try server.start()
        let shownHost = host.contains(":") ? "[\(host)]" : host
        context.stdout.line("ferry serve: serving \(root) at http://\(shownHost):\(bound)/<store>")
        if let printedToken {
            context.stdout.line("token: \(printedToken)")
            context.stdout.line("(shown once; pass it to 'ferry sync' as --token or FERRY_TOKEN)")
        } else if tokenFromEnvironment {
            context.stdout.line("token: the one in FERRY_TOKEN")
        } else if policy.isOpen {
            context.stdout.line("authentication is off (--no-auth)")
        }
        await server.waitUntilStopped()
        service.close()
        stderr.line("ferry serve: stopped")
        return .success
    }

    /// Whether `host` is a loopback address or name.
    static func isLoopback(_ host: String) -> Bool {
        let plain = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if plain == "localhost" || plain == "::1" { return true }
        let parts = plain.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// 32 random bytes from /dev/urandom, as 64 hex digits.
    static func randomToken() throws -> String {
        let file = try FileDescriptor.open("/dev/urandom", .readOnly)
        defer { file.close() }
        var bytes: [UInt8] = []
        while bytes.count < 32 {
            let got = try file.read(upTo: 32 - bytes.count)
            guard !got.isEmpty else { throw CLIError("/dev/urandom gave no bytes") }
            bytes += got
        }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }
}
