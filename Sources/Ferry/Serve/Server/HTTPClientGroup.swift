/// Who a connection's limits are counted against: an IPv4 address, or a whole IPv6 /64 (a
/// client given a /64 has billions of addresses, so capping one of them caps nothing).
///
/// ```swift
/// HTTPClientGroup(host: "127.0.0.2").description               // "127.0.0.2"
/// HTTPClientGroup(host: "2001:db8:1:2::17").description        // "2001:db8:1:2::/64"
/// HTTPClientGroup(host: "::ffff:10.0.0.1").description         // "10.0.0.1"
/// ```
package struct HTTPClientGroup: Hashable, Sendable, CustomStringConvertible {
    /// The address, or the /64 prefix, as text.
    package let description: String

    /// The group of the numeric host `host`, as ``SocketAddress/host`` gives it. Text that is
    /// not an IPv6 address stands for itself.
    package init(host: String) {
        guard host.contains(":"), let groups = Self.ipv6Groups(host) else {
            description = host
            return
        }
        // An IPv4-mapped address is the IPv4 client it maps.
        if groups[0..<5].allSatisfy({ $0 == 0 }) && groups[5] == 0xFFFF, let dot = host.lastIndex(of: ":"),
            host[host.index(after: dot)...].contains(".")
        {
            description = String(host[host.index(after: dot)...])
            return
        }
        description = groups[0..<4].map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }

    /// The eight 16-bit groups of an IPv6 address in text (`::` expanded, a zone `%eth0` and a
    /// trailing dotted IPv4 part allowed), or `nil` when it is not one.
    static func ipv6Groups(_ text: String) -> [UInt16]? {
        let address = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)[0]
        func parse(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var groups: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1 && piece.contains(".") {
                    let octets = piece.split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt8($0) }
                    guard octets.count == 4 else { return nil }
                    groups.append(UInt16(octets[0]) << 8 | UInt16(octets[1]))
                    groups.append(UInt16(octets[2]) << 8 | UInt16(octets[3]))
                } else {
                    guard piece.count <= 4, let value = UInt16(piece, radix: 16) else { return nil }
                    groups.append(value)
                }
            }
            return groups
        }
        let halves = address.components(separatedBy: "::")
        switch halves.count {
        case 1:
            guard let groups = parse(Substring(halves[0])), groups.count == 8 else { return nil }
            return groups
        case 2:
            guard let head = parse(Substring(halves[0])), let tail = parse(Substring(halves[1])), head.count + tail.count < 8
            else { return nil }
            return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        default:
            return nil
        }
    }
}
