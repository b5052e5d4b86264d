/// What a replica syncing with a hub holds of the hub's members (``HubMembers``) during one
/// exchange, and the rule each segment of another replica passes before it is read.
///
/// The list is read only when the listing's member entries differ from the ones accepted at
/// the last sync (kept in `.ferry/peers/<hub>/hub-members.json`), so a sync with nothing to do
/// makes no request for it. A list that lost entries, or whose entries were rewritten, is a
/// warning and the list accepted before stays in force: a deleted or rolled-back members
/// object never silently opens the hub again.
///
/// ```swift
/// var membership = HubMembership(cachePath: memory.folder + "/hub-members.json")
/// try await membership.refresh(listed: objects, storage: storage, hub: hubID)
/// if try membership.admits(segment, of: replica, key: key) { … }
/// ```
struct HubMembership {
    /// Where the accepted list is kept; `nil` keeps nothing (a store with no peer memory).
    let cachePath: String?
    /// The list in force: `nil` while the hub has none (any replica may write).
    private(set) var members: HubMembers?
    /// Warnings and notes for the report.
    private(set) var notes: [String] = []

    /// The cache file's format.
    static let cacheFormat: Int64 = 1

    init(cachePath: String?) { self.cachePath = cachePath }

    /// Takes the list the listing shows: the cached one while its entries and tags are the same,
    /// else read and checked, and kept when it extends the one accepted before.
    /// - Throws: ``HubError`` when the hub's list cannot be read and none was accepted before.
    mutating func refresh(listed objects: [HubObject], storage: any HubStorage, hub: ReplicaID) async throws(HubError) {
        notes = []
        let listed = objects.filter { HubMembers.number(ofKey: $0.key) != nil }.sorted { $0.key < $1.key }
        let cached = loadCache(hub: hub)
        if let cached, cached.tags == listed.map(\.tag), cached.list.entries.count == listed.count {
            members = cached.list
            return
        }
        guard !listed.isEmpty else {
            members = cached?.list
            if let cached {
                notes.append(
                    "warning: the hub's members list is gone (deleted, or the hub restored from an older copy); the \(cached.list.entries.count) "
                        + "entries accepted before stay in force")
            }
            return
        }
        let fresh: HubMembers?
        do { fresh = try await HubMembers.read(from: storage, hub: hub, keys: listed.map(\.key)) } catch {
            guard let cached else { throw error }
            members = cached.list
            notes.append("warning: the hub's members list cannot be read (\(error)); the list accepted before stays in force")
            return
        }
        if let cached, let fresh {
            let kept = cached.list.entries.map(\.hash)
            guard fresh.entries.count >= kept.count, Array(fresh.entries.prefix(kept.count).map(\.hash)) == kept else {
                members = cached.list
                notes.append(
                    "warning: the hub's members list was rolled back or rewritten (it shows \(fresh.entries.count) entries, "
                        + "\(kept.count) were accepted before, and they differ); the list accepted before stays in force")
                return
            }
        }
        members = fresh
        saveCache(tags: listed.map(\.tag))
    }

    /// Whether segment `segment` of `replica` (at `key`) may be read: always while the hub
    /// has no members list; a member's, or a removed member's up to its removal. A removed
    /// member's later segment is left out with a warning.
    /// - Throws: ``HubError/notAMember(location:replica:key:)`` for a replica that never was one.
    mutating func admits(_ segment: UInt64, of replica: ReplicaID, key: String, location: String) throws(HubError) -> Bool {
        guard let members, !members.admits(segment: segment, of: replica) else { return true }
        guard let member = members.members[replica], let removed = member.removed else {
            throw .notAMember(location: location, replica: replica, key: key)
        }
        notes.append(
            "warning: \(key) was written by replica \(member.name ?? replica.short) (\(replica)) after it was removed from the hub's "
                + "members (entry \(removed.entry)): refused; its first \(removed.segments) segments stay valid")
        return false
    }

    /// Adds `replica` with `key`, signed by `signer` (a member's key): `--trust-new`.
    /// - Throws: ``HubError`` when the entry cannot be written, or the signer is no member.
    mutating func trust(_ replica: ReplicaID, key: ReplicaPublicKey, by signer: ReplicaSigningKey, storage: any HubStorage, at now: UInt64) async throws(HubError) {
        guard var list = members else { return }
        let entry = list.entry(.add, replica: replica, key: key, by: signer, at: now)
        try list.append(entry, location: storage.location)
        try await HubMembers.write(entry, to: storage)
        members = list
        notes.append("trusted replica \(replica) (key \(key.short)…) as a new member of the hub (--trust-new), entry \(entry.number)")
        saveCache(tags: nil)
    }

    // MARK: Cache

    private func loadCache(hub: ReplicaID) -> (list: HubMembers, tags: [String])? {
        guard let cachePath, FileSystem.exists(cachePath) else { return nil }
        // Unreadable: the hub's list is read and checked again.
        guard let bytes = try? FileSystem.readFile(cachePath, limit: 64 << 20),
            let value = try? JSONParser.parse(bytes, options: .init(maximumDepth: 4, maximumByteCount: 64 << 20)),
            value["ferry-hub-members-cache"]?.integerValue == Self.cacheFormat, let entries = value["entries"]?.arrayValue
        else { return nil }
        var list = HubMembers(hub: hub)
        for (index, item) in entries.enumerated() {
            guard let hex = item.stringValue, let entryBytes = HexText.bytes(hex),
                let entry = try? HubMembers.entry(bytes: entryBytes, key: HubMembers.key(of: index + 1), location: ""),
                (try? list.append(entry)) != nil
            else { return nil }
        }
        let tags = value["tags"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return (list, tags)
    }

    private mutating func saveCache(tags: [String]?) {
        guard let cachePath, let members else { return }
        let value: JSONValue = [
            "ferry-hub-members-cache": .integer(Self.cacheFormat),
            "entries": .array(members.entries.map { .string(HexText.string($0.bytes)) }),
            "tags": .array((tags ?? []).map { .string($0) }),
        ]
        do {
            try FileSystem.createDirectories(String(cachePath[..<(cachePath.lastIndex(of: "/") ?? cachePath.endIndex)]))
            try FileSystem.writeFileAtomically(cachePath, value.prettyBytes(), durable: true)
        } catch {
            notes.append("the accepted members list could not be kept (\(error)); the next sync reads it again")
        }
    }
}
