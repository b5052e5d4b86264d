/// What `ferry verify` can check of an encrypted hub without its key: that every sealed object
/// is whole (its header's magic and size), and that the newest key entry is signed by a member.
/// Heads, segments and snapshots are not opened, and the report says so.
package enum SealedHubCheck {
    /// What the check found.
    package struct Report: Sendable {
        /// Sealed objects whose header and size were checked.
        package var sealedObjects = 0
        /// Key entries read.
        package var keyEntries = 0
        /// One line per problem, naming the object.
        package var findings: [String] = []
        package var isClean: Bool { findings.isEmpty }
    }

    /// Checks the encrypted hub in `storage` (its base is used: nothing is opened).
    /// - Throws: ``HubError`` when the hub cannot be listed or read.
    package static func check(_ storage: any HubStorage) async throws(HubError) -> Report {
        let base = (storage as? SealedHubStorage)?.base ?? storage
        var report = Report()
        let objects = try await base.list(prefix: "")
        for object in objects where !SealedHubStorage.isPlaintext(object.key) {
            guard let fetched = try await base.get(object.key, limit: Int(clamping: object.size) + 1) else { continue }
            report.sealedObjects += 1
            do throws(HubSeal.Failure) {
                _ = try HubSeal.epoch(of: fetched.bytes)
                guard HubSeal.integer(fetched.bytes[8..<16]) == UInt64(fetched.bytes.count) else { throw .incomplete }
            } catch {
                report.findings.append(
                    error == .notSealed
                        ? "\(object.key): not sealed, in an encrypted hub (written without the hub's key)"
                        : "\(object.key): shorter or longer than its header says (not fully arrived, doubled, or altered)")
            }
        }
        let numbers = objects.compactMap { HubKeyEntry.number(ofKey: $0.key) }
        guard let newest = numbers.max() else {
            report.findings.append("\(HubKeyEntry.prefix): missing: nothing opens this hub")
            return report
        }
        report.keyEntries = numbers.count
        let key = HubKeyEntry.key(of: newest)
        guard let bytes = try await base.get(key, limit: HubKeyEntry.maximumByteCount)?.bytes else { return report }
        do {
            let entry = try HubKeyEntry(bytes: bytes, key: key, location: base.location)
            let members = try await HubMembers.read(from: base, hub: entry.hub)
            if let members, let signerKey = entry.signerKey, members.member(withKey: signerKey) == nil {
                report.findings.append("\(key): signed by replica \(entry.signer?.short ?? "?"), which is not a member of the hub")
            } else if entry.signerKey == nil {
                report.findings.append("\(key): not signed")
            }
        } catch {
            report.findings.append("\(error)")
        }
        return report
    }
}
