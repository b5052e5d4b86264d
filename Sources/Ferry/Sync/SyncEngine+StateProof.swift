/// Joining from a peer store's state (not a hub's snapshot, which its transport proves before
/// it offers one): every version is read and checked, and the state tied to the peer's signed
/// statement of it, before any of it is applied.
extension SyncEngine {
    /// Reads the state `offer` stands for from `source` whole and checks it: each version
    /// against its digest and the frontier, each parent link between consecutive versions of
    /// one origin (``SnapshotCheck``), then the peer's signed statement against what was read
    /// (``StateStatement``), sent with the offer or, by a ``StateStatingSource``, once the
    /// pages were read. A peer that states nothing (a store without a key, an older
    /// `ferry serve`) is joined with a note saying its state is its word.
    ///
    /// - Parameter keeping: whether to keep the versions read (in memory within
    ///   ``SyncOptions/maximumKeptChangeBytes``, spooled past it) for the join to apply; a dry
    ///   run only checks.
    /// - Throws: ``SyncError/stateRefused(peer:reason:)`` naming the first problem, having
    ///   written nothing; the transport's errors as they come.
    /// - Returns: the versions (when kept) and the statement they were proven against.
    func readProvenState(
        _ offer: SnapshotOffer, from source: any SnapshotSource, keeping: Bool, result: inout SyncReport
    ) async throws(SyncError) -> (versions: CheckedChanges, statement: JSONValue?) {
        let peer = transport.peerDescription
        let name = "its entry \(offer.position ?? 0)"
        var check = SnapshotCheck(name: name, frontier: offer.frontier, changeCount: offer.changeCount, statedDigest: nil, checkingSeals: false)
        var checked = CheckedChanges(budget: options.maximumKeptChangeBytes, spoolDirectory: options.spoolDirectory)
        var read = 0
        // The peer reads the next page while this one is checked, as a pull reads ahead while
        // it writes (nothing is written here until every page was read and checked): read and
        // checked one after the other, a 10k-record join from a folder spent 0.2 s on one core.
        let pageSize = options.pageSize
        @Sendable func fetch() async -> Result<[Change]?, SyncError> {
            do { return .success(try await source.snapshotChanges(limit: pageSize)) } catch { return .failure(error) }
        }
        var next = try await source.snapshotChanges(limit: pageSize)
        while let page = next {
            async let following = fetch()
            check.add(page, at: name)
            if keeping { checked.add(page) }
            read += page.count
            report(SyncProgress(phase: .pulling, completed: read, total: offer.changeCount))
            next = try await following.get()
        }
        let problems = check.finish()
        if let first = problems.first {
            throw .stateRefused(peer: peer, reason: first + (problems.count > 1 ? " (and \(problems.count - 1) more problems)" : ""))
        }
        var stated = offer.statement
        if stated == nil, let stating = source as? any StateStatingSource { stated = try await stating.statementOfStateRead() }
        guard let statement = stated else {
            result.notes.append(
                "\(peer) did not sign its state (a store made before changes were signed, or an older ferry serve): the "
                    + "\(offer.changeCount) versions taken from it are its word, each checked against its digest and the versions it follows"
                    + (offer.holdsHistory ? "; 'ferry sync --history full' takes its whole history instead, every change checked" : ""))
            return (checked, nil)
        }
        guard let replica = source.joinSource?.id else {
            throw .stateRefused(peer: peer, reason: "it does not say which replica it is, so its statement of the state cannot be checked")
        }
        var held: ReplicaPublicKey?
        if let signer = self.replica as? any ObjectSigner {
            do { held = try signer.keyBook()[replica] } catch { throw .store(error) }
        }
        if let problem = StateStatement.problem(with: statement, offer: offer, from: replica, held: held, received: check.stateDigest ?? .zero) {
            throw .stateRefused(peer: peer, reason: problem)
        }
        return (checked, statement)
    }

    /// Calls `body` with the pages of a state read and proven by
    /// ``readProvenState(_:from:keeping:result:)``: those kept or spooled, or, when neither
    /// could hold them, the same versions read again from the peer, which must offer the very
    /// same state again and give them change for change.
    func forEachProvenPage(
        of checked: CheckedChanges, offer: SnapshotOffer, from source: any SnapshotSource, knowledge: VersionVector,
        pending: SnapshotJoins.Join?, _ body: ([Change]) async throws(SyncError) -> Void
    ) async throws(SyncError) {
        var offeredAgain = false
        try await forEachPage(of: checked, after: 0, from: transport.peerDescription) { (position, limit) async throws(SyncError) -> ChangeBatch in
            if !offeredAgain {
                guard try await source.snapshotOffer(for: knowledge, pending: pending)?.id == offer.id else {
                    throw .transport("\(transport.peerDescription) changed its state during the sync; sync again")
                }
                offeredAgain = true
            }
            let page = try await source.snapshotChanges(limit: limit) ?? []
            return ChangeBatch(changes: page, through: position + UInt64(page.count), head: UInt64(offer.changeCount))
        } _: { (page) async throws(SyncError) in
            try await body(page)
        }
    }
}
