/// Checks a hub (`ferry verify <hub>`): every head reads, every segment a head lists is present,
/// matches its hash and its head's description, names the segment before it, and every change
/// in it matches its digest and follows its origin's chain.
///
/// ```swift
/// let report = try await HubVerifier(storage: FolderHubStorage(root: path)).verify()
/// print(report.findings.isEmpty ? "ok" : report.findings.joined(separator: "\n"))
/// ```
public struct HubVerifier: Sendable {
    public let storage: any HubStorage

    public init(storage: any HubStorage) { self.storage = storage }

    /// What a verification found.
    public struct Report: Sendable {
        /// One line per problem, naming the object.
        public var findings: [String] = []
        /// Segments listed by a head but not in the hub (not arrived yet in a copied folder, or lost).
        public var missing: [String] = []
        public var heads = 0
        public var segments = 0
        public var changes = 0
        public var isClean: Bool { findings.isEmpty && missing.isEmpty }

        public var jsonValue: JSONValue {
            [
                "clean": .bool(isClean), "heads": .integer(Int64(heads)), "segments": .integer(Int64(segments)),
                "changes": .integer(Int64(changes)), "findings": .array(findings.map { .string($0) }),
                "missing": .array(missing.map { .string($0) }),
            ]
        }
    }

    /// Reads every head and segment once.
    /// - Throws: ``HubError`` when the location is not a hub or cannot be read at all.
    public func verify() async throws(HubError) -> Report {
        let objects = try await storage.list(prefix: "")
        guard objects.contains(where: { $0.key == HubDescriptor.key }), let descriptorBytes = try await storage.get(HubDescriptor.key)?.bytes else {
            throw .noHub(location: storage.location)
        }
        _ = try HubDescriptor(bytes: descriptorBytes, location: storage.location)
        var report = Report()
        let present = Set(objects.map(\.key))
        // Each origin's latest change seen in any segment, by counter, for the chains.
        var digests: [ReplicaID: [UInt64: SHA256Digest]] = [:]
        var pendingParents: [(change: ChangeIdentity, parent: SHA256Digest, where: String)] = []
        for object in objects where object.key.hasPrefix("heads/") && object.key.hasSuffix(".json") {
            let name = String(object.key.dropFirst("heads/".count).dropLast(".json".count))
            guard let replica = ReplicaID(name), HubHead.key(of: replica) == object.key else { continue }
            guard let bytes = try await storage.get(object.key)?.bytes else { continue }
            let head: HubHead
            do { head = try HubHead(bytes: bytes, key: object.key, expected: replica, location: storage.location) } catch {
                report.findings.append("\(object.key): \(error)")
                continue
            }
            report.heads += 1
            var previous = SHA256Digest.zero
            for segment in head.segments {
                let key = head.key(of: segment)
                defer { previous = segment.hash }
                guard present.contains(key), let bytes = try await storage.get(key)?.bytes else {
                    report.missing.append(key)
                    continue
                }
                report.segments += 1
                let decoded: (changes: [Change], previous: SHA256Digest)
                do {
                    decoded = try HubSegment.decode(bytes, expected: segment, replica: replica, key: key, location: storage.location)
                } catch {
                    report.findings.append("\(key): \(error)")
                    continue
                }
                if decoded.previous != previous {
                    report.findings.append("\(key): names \(decoded.previous.hex.prefix(12)) as the segment before it, its head lists \(previous.hex.prefix(12))")
                }
                for (index, change) in decoded.changes.enumerated() {
                    report.changes += 1
                    let place = "\(key) line \(index + 2)"
                    guard let chain = change.chain else {
                        report.findings.append("\(place): change \(change.identity) carries no digest")
                        continue
                    }
                    let canonical = change.operation.document.map { $0.canonicalBytes() }
                    if ChangeChain.digest(of: change, parent: chain.parent, canonicalDocument: canonical) != chain.digest {
                        report.findings.append("\(place): change \(change.identity) to \(change.key) does not match its digest (altered)")
                        continue
                    }
                    if let known = digests[change.origin]?[change.counter], known != chain.digest {
                        report.findings.append("\(place): change \(change.identity) differs from another copy of it in the hub (a copied store?)")
                    }
                    digests[change.origin, default: [:]][change.counter] = chain.digest
                    if change.counter > 1, !chain.isLegacy(counter: change.counter) {
                        pendingParents.append((change.identity, chain.parent, place))
                    }
                }
            }
        }
        // Each change's parent is the digest of its origin's change before it, wherever that is.
        for item in pendingParents {
            guard let before = digests[item.change.origin]?[item.change.counter - 1] else { continue }  // in a segment not arrived
            if before != item.parent {
                report.findings.append("\(item.where): change \(item.change) does not follow change \(item.change.counter - 1) of its origin")
            }
        }
        return report
    }
}
