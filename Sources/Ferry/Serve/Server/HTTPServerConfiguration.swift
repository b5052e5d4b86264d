/// Where the server listens and the limits that keep one client from pinning it.
///
/// ```swift
/// var configuration = HTTPServerConfiguration(port: 0)   // an ephemeral port, for tests
/// configuration.idleTimeout = .milliseconds(300)
/// let server = HTTPServer(configuration: configuration, handler: handler)
/// ```
package struct HTTPServerConfiguration: Sendable {
    /// The address to bind: `127.0.0.1` (loopback only) by default; `0.0.0.0` or `::` for all.
    package var host: String
    /// The TCP port; `0` lets the system pick a free one, which ``HTTPServer/start()`` returns.
    package var port: Int
    /// The most bytes the request line and header fields may take together (`431` beyond).
    package var maximumHeaderBytes: Int
    /// The most header fields a request may have (`431` beyond).
    package var maximumHeaderCount: Int
    /// The largest request body accepted (`413` beyond, answered before the body is read).
    package var maximumBodyBytes: Int
    /// The most connections served at once, each on its own thread. A connection beyond this
    /// is accepted, answered `503` and closed. A connection whose response took it over
    /// (``HTTPResponse/Body/handOff(_:)``, a change feed's subscriber) no longer counts.
    package var maximumConnections: Int
    /// How long a new connection may stay silent before it is closed without an answer.
    package var firstRequestTimeout: Duration
    /// How long a request may take to arrive completely once its first byte has come (`408`).
    package var readTimeout: Duration
    /// How long a kept-alive connection may wait for its next request before it is closed.
    package var idleTimeout: Duration
    /// How long writing to a client that does not read may block before the connection is dropped.
    package var writeTimeout: Duration
    /// How long ``HTTPServer/stop()`` waits for requests under way before it cuts connections.
    package var shutdownGracePeriod: Duration
    /// The bytes of request bodies all connections may hold at once (`503` for a body beyond).
    package var bodyBudgetBytes: Int = 256 << 20
    /// The most connections one client address may hold at once (`503` beyond): one client
    /// cannot take every slot. A trusted proxy (``trustedProxies``), which carries every
    /// client's connections, is not capped: it has limits of its own.
    package var maximumConnectionsPerAddress: Int = 64
    /// How long a request's head may take to arrive once its first byte has come (`408`): a
    /// client sending one header byte at a time (slowloris) holds its slot this long at most.
    package var headTimeout: Duration = .seconds(5)
    /// The slowest a body may arrive on average, in bytes per second: from its head on, once
    /// ``bodyRateGrace`` has passed, the bytes received must keep up with this rate times the
    /// time since the grace ended, checked continuously (`408` when they fall behind). A client
    /// that sends a byte now and then holds its slot for the grace and little more.
    package var minimumBodyBytesPerSecond: Int = 16 << 10
    /// How long a body may take to start coming at ``minimumBodyBytesPerSecond``.
    package var bodyRateGrace: Duration = .seconds(3)
    /// The bytes of bodies (as received and as parsed) the requests of one client may hold at
    /// once: an address (or IPv6 /64), and a token, each have this share of ``bodyBudgetBytes``
    /// (`503` beyond), so one token holder cannot take the budget others need.
    package var bodyBudgetBytesPerClient: Int = 128 << 20
    /// The most connections whose requests present one token (`503` beyond).
    package var maximumConnectionsPerToken: Int = 64
    /// How long a new connection is safe from being closed to make room for a newer one.
    package var evictionProtection: Duration = .milliseconds(100)
    /// The longest a body may stop coming altogether (`408` beyond): a client that sends most
    /// of a large body quickly, then stalls, does not hold its slot and its share of the body
    /// budget for the whole time the minimum rate would allow.
    package var bodyStallTimeout: Duration = .seconds(10)
    /// Addresses of reverse proxies in front of the server (`127.0.0.1` for nginx on the same
    /// machine): for a connection from one of them, the log names the client that
    /// `X-Forwarded-For` gives (its last entry, the one the proxy added), followed by the proxy.
    package var trustedProxies: Set<String> = []

    /// Makes a configuration; every limit has a default fit for `ferry serve`.
    package init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        maximumHeaderBytes: Int = 16 * 1024,
        maximumHeaderCount: Int = 100,
        maximumBodyBytes: Int = 64 * 1024 * 1024,
        maximumConnections: Int = 256,
        firstRequestTimeout: Duration = .seconds(5),
        readTimeout: Duration = .seconds(30),
        idleTimeout: Duration = .seconds(60),
        writeTimeout: Duration = .seconds(30),
        shutdownGracePeriod: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.maximumHeaderBytes = maximumHeaderBytes
        self.maximumHeaderCount = maximumHeaderCount
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumConnections = maximumConnections
        self.firstRequestTimeout = firstRequestTimeout
        self.readTimeout = readTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.shutdownGracePeriod = shutdownGracePeriod
    }

    /// The parser's share of the limits.
    var parserLimits: HTTPRequestParser.Limits {
        HTTPRequestParser.Limits(
            maximumHeaderBytes: maximumHeaderBytes, maximumHeaderCount: maximumHeaderCount,
            maximumBodyBytes: maximumBodyBytes)
    }
}
