/// Checks a hub (`ferry verify <hub>`): every head reads and is signed by its replica's key (a
/// head rewritten by someone else is a finding, and what it lists is not checked; an unsigned
/// one from a replica made before heads were signed is read, and reported as unprovable), every segment a head lists is present
/// (or collected by a snapshot that covers it), matches its hash and its head's description,
/// names the segment before it, and every change in it matches its digest and follows its
/// origin's chain. Every snapshot's parts match their hashes, its versions their digests, and it
/// agrees with the segments it covers that are still there: each of their changes is in the
/// snapshot or superseded by a version in it, nothing in it lies past its frontier, and the
/// frontier names the changes those segments hold; when none of its segments was collected yet,
/// the snapshot is rebuilt from them and must be exactly that.
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
        /// Heads with no signature, from replicas made before heads were signed.
        public var unsigned: [String] = []
        /// What the hub holds that the check cannot prove was written by whom it names, one line each.
        public var unprovable: [String] = []
        /// Segments deleted from the hub whose changes their owner wrote again in a later one.
        public var republished = 0
        public var heads = 0
        public var segments = 0
        public var changes = 0
        /// Segments deleted by `hub compact` under a snapshot that covers them.
        public var collected = 0
        public var snapshots = 0
        public var isClean: Bool { findings.isEmpty && missing.isEmpty }

        public var jsonValue: JSONValue {
            [
                "clean": .bool(isClean), "heads": .integer(Int64(heads)), "segments": .integer(Int64(segments)),
                "changes": .integer(Int64(changes)), "collected": .integer(Int64(collected)), "snapshots": .integer(Int64(snapshots)),
                "findings": .array(findings.map { .string($0) }),
                "missing": .array(missing.map { .string($0) }),
                "unsigned": .array(unsigned.map { .string($0) }), "unprovable": .array(unprovable.map { .string($0) }),
                "republished": .integer(Int64(republished)),
            ]
        }
    }

    /// Reads every head and segment once.
    /// - Throws: ``HubError`` when the location is not a hub or cannot be read at all.
    public func verify() async throws(HubError) -> Report {
        let objects = try await storage.list(prefix: "")
        guard objects.contains(where: { $0.key == HubDescriptor.key }), let descriptorBytes = try await storage.get(HubDescriptor.key, limit: HubDescriptor.maximumByteCount)?.bytes else {
            throw .noHub(location: storage.location)
        }
        let descriptor = try HubDescriptor(bytes: descriptorBytes, location: storage.location)
        var report = Report()
        let present = Set(objects.map(\.key))
        var snapshots = try await readSnapshots(objects, hub: descriptor.id, present: present, report: &report)
        // Each origin's latest change seen in any segment, by counter, for the chains.
        var digests: [ReplicaID: [UInt64: SHA256Digest]] = [:]
        var pendingParents: [(change: ChangeIdentity, parent: SHA256Digest, where: String)] = []
        var headsSeen: [ReplicaID: Int] = [:]
        // Each origin's highest change in the segments: its seal covers the chain before it.
        var latest: [ReplicaID: (change: Change, place: String)] = [:]
        for object in objects where object.key.hasPrefix("heads/") && object.key.hasSuffix(".json") {
            let name = String(object.key.dropFirst("heads/".count).dropLast(".json".count))
            guard let replica = ReplicaID(name), HubHead.key(of: replica) == object.key else { continue }
            guard case .bytes(let bytes) = try await read(object.key, limit: HubHead.maximumByteCount, into: &report) else { continue }
            let head: HubHead
            do { head = try HubHead(bytes: bytes, key: object.key, expected: replica, location: storage.location) } catch {
                report.findings.append("\(object.key): \(error)")
                continue
            }
            switch SignedObject.standing(of: head.signature, for: replica, held: nil) {
            case .forged(let reason):
                report.findings.append(
                    "\(object.key): rewritten by someone without replica \(replica.short)'s key (\(reason)); the segments it lists were not checked")
                continue
            case .unprovable:
                report.unsigned.append(object.key)
                report.unprovable.append(
                    "\(object.key): not signed (written before heads were signed): that replica \(replica.short) published the segments it lists cannot be proven")
            case .owner(_, let learned):
                if learned {
                    report.unprovable.append(
                        "\(object.key): signed by a key this check cannot tie to replica \(replica.short) (its id was made before keys; a store that synced with it holds its key)")
                }
            }
            report.heads += 1
            headsSeen[replica] = head.segments.count
            var previous = SHA256Digest.zero
            let republished = head.republished
            for segment in head.segments {
                let key = head.key(of: segment)
                defer { previous = segment.hash }
                let covering = snapshots.indices.filter { snapshots[$0].snapshot.covers[replica, default: 0] >= segment.number }
                let read = present.contains(storage.storedKey(for: key)) ? try await read(key, limit: HubSegment.maximumByteCount, into: &report) : .absent
                guard case .bytes(let bytes) = read else {
                    if read == .refused {
                        continue
                    } else if republished.contains(segment.number) {
                        report.republished += 1
                    } else if covering.isEmpty {
                        report.missing.append(key)
                    } else {
                        report.collected += 1
                        for index in covering { snapshots[index].complete = false }
                    }
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
                    if change.counter > latest[change.origin]?.change.counter ?? 0 { latest[change.origin] = (change, place) }
                    for index in covering {
                        let checked = snapshots[index]
                        if change.counter > checked.snapshot.frontier.knowledge[change.origin] {
                            report.findings.append("\(place): change \(change.identity) lies past the frontier of snapshot \(checked.snapshot.id.hex.prefix(12)), which covers this segment")
                        } else if !checked.state.reflects(change) {
                            report.findings.append("\(place): change \(change.identity) to \(change.key) is missing from snapshot \(checked.snapshot.id.hex.prefix(12)), which covers this segment")
                        }
                        snapshots[index].rebuilt.incorporate(change)
                    }
                    if change.counter > 1, !chain.isLegacy(counter: change.counter) {
                        pendingParents.append((change.identity, chain.parent, place))
                    }
                }
            }
        }
        for checked in snapshots {
            let name = HubSnapshot.manifestKey(checked.snapshot.id)
            for (origin, counter) in checked.snapshot.frontier.knowledge.sortedCounters {
                if let read = digests[origin]?[counter], read != checked.snapshot.frontier.digests[origin] {
                    report.findings.append("\(name): its frontier names change \(counter) of replica \(origin.short) with another digest than the hub holds")
                }
            }
            // Covering every segment it covers that is still here, it must be exactly their state.
            if checked.complete, checked.readAll, checked.snapshot.covers.allSatisfy({ $0.value <= UInt64(headsSeen[$0.key] ?? 0) }) {
                let rebuilt = Set(checked.rebuilt.sortedChanges.map(\.identity))
                let held = Set(checked.state.sortedChanges.map(\.identity))
                if rebuilt != held {
                    report.findings.append(
                        "\(name): does not match the segments it covers (\(held.subtracting(rebuilt).count) versions it should not hold, "
                            + "\(rebuilt.subtracting(held).count) it lacks)")
                }
            }
        }
        checkSeals(of: latest, into: &report)
        // Each change's parent is the digest of its origin's change before it, wherever that is.
        for item in pendingParents {
            guard let before = digests[item.change.origin]?[item.change.counter - 1] else { continue }  // in a segment not arrived
            if before != item.parent {
                report.findings.append("\(item.where): change \(item.change) does not follow change \(item.change.counter - 1) of its origin")
            }
        }
        return report
    }

    /// Checks the seal on each origin's highest change, which vouches for its chain before it: a
    /// key-derived origin's must be its key's; an older origin's unsigned work cannot be proven.
    private func checkSeals(of latest: [ReplicaID: (change: Change, place: String)], into report: inout Report) {
        for (origin, item) in latest.sorted(by: { $0.key < $1.key }) {
            let change = item.change
            guard let seal = change.chain?.seal else {
                if origin.isKeyDerived {
                    report.findings.append(
                        "\(item.place): change \(change.identity), the last of replica \(origin.short) in the hub, is not signed: someone without its key published it")
                } else {
                    report.unprovable.append(
                        "replica \(origin.short)'s changes through \(change.counter) are not signed (made before changes were signed): who made them cannot be proven")
                }
                continue
            }
            if origin.isKeyDerived && !origin.isDerived(from: seal.signer) {
                report.findings.append(
                    "\(item.place): change \(change.identity) is signed by key \(seal.signer.short)…, not the key replica \(origin.short)'s id is made from")
            } else if !seal.isValid(for: change.digest) {
                report.findings.append("\(item.place): the signature of change \(change.identity) does not check")
            }
        }
    }

    /// A snapshot as read: its versions, and the state its covered segments rebuild.
    private struct CheckedSnapshot {
        var snapshot: HubSnapshot
        var state: HubState
        /// Its parts all read and sound.
        var readAll: Bool
        /// None of the segments it covers has been collected.
        var complete = true
        var rebuilt = HubState()
    }

    /// Reads every snapshot: manifest, parts, and each version's digest.
    private func readSnapshots(
        _ objects: [HubObject], hub: ReplicaID, present: Set<String>, report: inout Report
    ) async throws(HubError) -> [CheckedSnapshot] {
        var result: [CheckedSnapshot] = []
        for object in objects {
            guard let id = HubSnapshot.id(ofManifestKey: object.key),
                case .bytes(let bytes) = try await read(object.key, limit: HubSnapshot.maximumManifestByteCount, into: &report)
            else { continue }
            let snapshot: HubSnapshot
            do { snapshot = try HubSnapshot(manifest: bytes, id: id, location: storage.location) } catch {
                report.findings.append("\(object.key): \(error)")
                continue
            }
            guard snapshot.hub == hub else {
                report.findings.append("\(object.key): belongs to hub \(snapshot.hub.short), not this one")
                continue
            }
            report.snapshots += 1
            var checked = CheckedSnapshot(snapshot: snapshot, state: HubState(), readAll: true)
            var versions = 0
            for part in snapshot.parts {
                let key = HubSnapshot.partKey(snapshot: id, part: part)
                let read = present.contains(storage.storedKey(for: key)) ? try await read(key, limit: HubSnapshot.maximumPartByteCount, into: &report) : .absent
                guard case .bytes(let partBytes) = read else {
                    if read == .absent { report.missing.append(key) }
                    checked.readAll = false
                    continue
                }
                do {
                    for (index, change) in try HubSnapshot.decodePart(partBytes, expected: part, key: key, location: storage.location).enumerated() {
                        versions += 1
                        guard let chain = change.chain, chain.matches(change) else {
                            report.findings.append("\(key) line \(index + 2): version \(change.identity) of \(change.key) does not match its digest (altered)")
                            checked.readAll = false
                            continue
                        }
                        if change.counter > snapshot.frontier.knowledge[change.origin] {
                            report.findings.append("\(key) line \(index + 2): version \(change.identity) lies past the snapshot's frontier")
                        }
                        checked.state.incorporate(change)
                    }
                } catch {
                    report.findings.append("\(key): \(error)")
                    checked.readAll = false
                }
            }
            if checked.readAll && checked.state.records.count != snapshot.recordCount {
                report.findings.append("\(object.key): says \(snapshot.recordCount) records, its parts hold \(checked.state.records.count)")
            }
            result.append(checked)
        }
        return result
    }

    /// What reading one object for the check gave.
    private enum ObjectRead: Equatable {
        case bytes([UInt8])
        /// Gone (between the listing and the read).
        case absent
        /// Over the limit of its kind: a finding, and never read.
        case refused
    }

    /// Reads `key` for the check; an object over `limit` bytes becomes a finding.
    private func read(_ key: String, limit: Int, into report: inout Report) async throws(HubError) -> ObjectRead {
        do {
            guard let fetched = try await storage.get(key, limit: limit) else { return .absent }
            return .bytes(fetched.bytes)
        } catch {
            guard case .malformed(_, _, let reason) = error else { throw error }
            report.findings.append("\(key): \(reason)")
            return .refused
        }
    }
}
