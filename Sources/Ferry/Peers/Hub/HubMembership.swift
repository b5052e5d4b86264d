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
    /// Whether this exchange already said that the syncing replica is not a member, or that
    /// the hub is open.
    private var reportedNotMember = false
    private var reportedOpen = false
    /// The tags of the list's entries as last listed (and written), kept with the cache so the
    /// next sync does not read an unchanged list again.
    private var acceptedTags: [String] = []

    /// The cache file's format.
    static let cacheFormat: Int64 = 1

    init(cachePath: String?) { self.cachePath = cachePath }

    /// Takes the list the listing shows: the cached one while its entries and tags are the same,
    /// else read and checked, and kept when it extends the one accepted before.
    /// - Throws: ``HubError`` when the hub's list cannot be read and none was accepted before.
    mutating func refresh(listed objects: [HubObject], storage: any HubStorage, hub: ReplicaID) async throws(HubError) {
        notes = []
        reportedNotMember = false
        reportedOpen = false
        let listed = objects.filter { HubMembers.number(ofKey: $0.key) != nil }.sorted { $0.key < $1.key }
        let cached = loadCache(hub: hub)
        acceptedTags = listed.map(\.tag)
        if let cached, cached.tags == acceptedTags, cached.list.entries.count == listed.count {
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
        saveCache()
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

    /// Records `replica` (at `signer`'s key) as the hub's first member when the hub has no
    /// members list and no other replica's head: the first replica to write to a new hub
    /// founds its list, so a second one is read only once a member adds it (or trusts it with
    /// `--trust-new`). A hub that other replicas wrote to before members existed stays open,
    /// with a note that says how to close it. Another replica founding the list at the same
    /// moment wins; this one is then not a member, and the note says so. A replica that is not
    /// a member and `publishing` a segment is told that members will refuse it.
    /// - Throws: ``HubError`` when the entry cannot be written or the list cannot be read back.
    mutating func foundIfNew(
        as replica: ReplicaID, name: String?, signer: ReplicaSigningKey, publishing: Bool, otherHeads: Int, storage: any HubStorage, hub: ReplicaID,
        at now: UInt64
    ) async throws(HubError) {
        if let members {
            if publishing && members.current[replica] == nil && !reportedNotMember {
                reportedNotMember = true
                notes.append(
                    "warning: this replica (\(replica)) is not a member of the hub: its members refuse its changes until one of them adds it "
                        + "('ferry hub members add \(storage.location) \(replica)' from a member's store) or syncs once with --trust-new")
            }
            return
        }
        guard otherHeads == 0 else {
            if !reportedOpen {
                reportedOpen = true
                notes.append(
                    "note: this hub has no members list, so it reads work from any replica that can write to it; "
                        + "'ferry hub members add \(storage.location) <replica>' from this store records this replica and the one added")
            }
            return
        }
        var list = HubMembers(hub: hub)
        let first = list.entry(.add, replica: replica, key: signer.publicKey, name: name, by: signer, at: now)
        do {
            let tag = try await HubMembers.write(first, to: storage)
            try list.append(first, location: storage.location)
            members = list
            acceptedTags = [tag]
            notes.append("recorded this replica as the hub's first member (key \(signer.publicKey.short)…): other replicas are read once a member adds them")
            saveCache()
        } catch {
            guard case .alreadyExists = error else { throw error }
            // Another replica founded the list first: take its list as it is.
            guard let founded = try await HubMembers.read(from: storage, hub: hub) else {
                throw .membersRefused(location: storage.location, reason: "another replica began the members list at the same moment, and it cannot be read yet; sync again")
            }
            members = founded
            acceptedTags = []  // read again at the next sync, with its tags
            saveCache()
            if founded.current[replica] == nil {
                reportedNotMember = true
                notes.append(
                    "warning: another replica recorded itself as the hub's first member at the same moment; this replica (\(replica)) is not a member, "
                        + "and its changes are refused until a member adds it ('ferry hub members add \(storage.location) \(replica)')")
            }
        }
    }

    /// Adds `replica` with `key`, signed by `signer` (a member's key): `--trust-new`.
    /// - Throws: ``HubError`` when the entry cannot be written, or the signer is no member.
    mutating func trust(_ replica: ReplicaID, key: ReplicaPublicKey, by signer: ReplicaSigningKey, storage: any HubStorage, at now: UInt64) async throws(HubError) {
        guard var list = members else { return }
        let entry = list.entry(.add, replica: replica, key: key, by: signer, at: now)
        try list.append(entry, location: storage.location)
        let tag = try await HubMembers.write(entry, to: storage)
        members = list
        acceptedTags.append(tag)
        notes.append("trusted replica \(replica) (key \(key.short)…) as a new member of the hub (--trust-new), entry \(entry.number)")
        saveCache()
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

    private mutating func saveCache() {
        guard let cachePath, let members else { return }
        let value: JSONValue = [
            "ferry-hub-members-cache": .integer(Self.cacheFormat),
            "entries": .array(members.entries.map { .string(HexText.string($0.bytes)) }),
            "tags": .array(acceptedTags.map { .string($0) }),
        ]
        do {
            try FileSystem.createDirectories(String(cachePath[..<(cachePath.lastIndex(of: "/") ?? cachePath.endIndex)]))
            try FileSystem.writeFileAtomically(cachePath, value.prettyBytes(), durable: true)
        } catch {
            notes.append("the accepted members list could not be kept (\(error)); the next sync reads it again")
        }
    }
}
