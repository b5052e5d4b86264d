#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The numeric address of one end of a TCP connection, such as `127.0.0.1:52814`.
///
/// ```swift
/// let (connection, peer) = try listener.accept()!
/// log("connection from \(peer)")   // "connection from 127.0.0.1:52814"
/// ```
package struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The numeric host: `127.0.0.1` or `::1`.
    package var host: String
    /// The TCP port.
    package var port: Int

    /// Makes an address from its parts.
    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with an IPv6 host in brackets (`[::1]:8080`).
    package var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Decodes a `sockaddr` filled in by `accept`, `getsockname` or `getaddrinfo`.
    init?(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let flags = NI_NUMERICHOST | NI_NUMERICSERV
        let status = getnameinfo(
            address, length, &host, socklen_t(host.count), &service, socklen_t(service.count), flags)
        guard status == 0 else { return nil }
        let hostBytes = host.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
        let serviceBytes = service.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
        self.host = String(decoding: hostBytes, as: UTF8.self)
        self.port = Int(String(decoding: serviceBytes, as: UTF8.self)) ?? 0
    }
}
