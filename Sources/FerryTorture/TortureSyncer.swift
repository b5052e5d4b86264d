import Ferry

/// `ferry-torture syncer <storeA> <storeB> <seed>`: edits two stores and syncs them, forever,
/// in random directions with random policies, so a test can SIGKILL a sync at any moment.
///
/// Output, one group per `write(2)`:
/// ```
/// ready
/// ack <A|B> <origin>:<counter> <put|delete> <entity>/<id> <sha256|->   a local edit, acknowledged
/// synced <plan> <pulled> <pushed>                                       a completed sync
/// ```
struct TortureSyncer {
    /// The entities edited: a small key space, so both sides touch the same records.
    static let entities = ["Note", "Task"]

    let pathA: String
    let pathB: String
    let seed: UInt64

    /// Runs until killed; returns only by throwing.
    func run() async throws -> Never {
        var random = SplitMix64(seed: seed)
        var documents = DocumentGenerator(random: SplitMix64(seed: seed ^ 0xD0C5))
        var options = StoreOptions()
        options.lockTimeout = 30
        let a = try Store.open(at: pathA, options: options)
        let b = try Store.open(at: pathB, options: options)
        try OutputLines.emit("ready")
        var round = 0
        while true {
            round += 1
            for (label, store) in [("A", a), ("B", b)] {
                for number in 0..<Int.random(in: 0...3, using: &random) {
                    try edit(store, label: label, nonce: "\(seed)-\(round)-\(label)\(number)", random: &random, documents: &documents)
                }
            }
            let (local, peer) = random.chance(50) ? (a, b) : (b, a)
            var syncOptions = SyncOptions(policy: ConflictPolicy.allCases.randomElement(using: &random) ?? .keepBoth)
            syncOptions.force = true
            syncOptions.pageSize = Int.random(in: 1...8, using: &random)  // many small appends: more places to die
            let report = try await SyncEngine(
                store: local, transport: FolderTransport(path: peer.path, options: options), options: syncOptions
            ).run()
            try OutputLines.emit("synced \(report.plan.rawValue) \(report.pulled) \(report.pushed)")
        }
    }

    private func edit(
        _ store: Store, label: String, nonce: String, random: inout SplitMix64, documents: inout DocumentGenerator
    ) throws {
        let entity = try EntityName(TortureSyncer.entities.randomElement(using: &random) ?? "Note")
        let key = RecordKey(entity: entity, id: try RecordID("n\(Int.random(in: 0..<25, using: &random))"))
        let state = try store.state(of: key)
        // `nil` alone would be JSON's null: a delete is `Optional.none`.
        let document: JSONValue? = (state?.isLive ?? false) && random.chance(25) ? Optional.none : documents.document(nonce: nonce)
        // A record in conflict takes no put or delete (issue 55): the edit resolves it.
        let result = state?.isConflicted == true
            ? try store.resolve(key, with: document) : try store.write([document.map { .put(key, $0) } ?? .delete(key)])
        for entry in result.entries {
            let change = entry.change
            try OutputLines.emit(
                "ack \(label) \(change.origin.rawValue):\(change.counter) \(change.operation.name) "
                    + "\(key.entity.rawValue)/\(key.id.rawValue) \(OutputLines.hashToken(change.operation.document))")
        }
    }
}
