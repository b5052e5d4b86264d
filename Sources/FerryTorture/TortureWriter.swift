import Ferry

/// `ferry-torture writer <store> <seed> [--batch-max N]`: writes to a store forever, printing
/// every write before it is attempted and again once it is acknowledged, so a test that
/// SIGKILLs it knows exactly what must have survived.
///
/// Output, one group per `write(2)`:
/// ```
/// ready <journal head>
/// try <n>                                     then n lines:
/// want <put|delete> <entity>/<id> <sha256|->  a write of the batch about to be attempted
/// ack <seq> <put|delete> <entity>/<id> <sha256|->   one per write, after the batch returned
/// rejected                                    the batch deleted a record another writer deleted first
/// ```
/// `<sha256>` is the hash of the document's canonical bytes; `<seq>` its journal sequence.
struct TortureWriter {
    /// The entities written.
    static let entities = ["Note", "User", "Scorebook_Game"]

    let storePath: String
    let seed: UInt64
    let batchMaximum: Int

    /// Ids that are reversible but awkward on disk: slashes, dots, case, non-ASCII.
    static func id(_ number: Int, style: Int) -> String {
        switch style {
        case 0: return "r\(number)"
        case 1: return "R\(number)"  // differs from r<n> only in case
        case 2: return "a/b/../\(number)"
        case 3: return "..\(number)"
        case 4: return "Ünï-\(number)-名"
        default: return "\(number)"
        }
    }

    /// The live records of the entities written.
    private func liveKeys(_ store: Store) throws -> Set<RecordKey> {
        var live = Set<RecordKey>()
        for entity in TortureWriter.entities {
            let name = try EntityName(entity)
            for id in try store.ids(of: name) { live.insert(RecordKey(entity: name, id: id)) }
        }
        return live
    }

    /// Runs until killed; returns only by throwing.
    func run() throws -> Never {
        var random = SplitMix64(seed: seed)
        var options = StoreOptions()
        options.lockTimeout = 30
        options.imageInterval = 1  // every close writes an index image
        options.mergeInterval = 100  // and long runs merge snapshots on another thread, often
        var store: Store
        if FileSystem.exists(storePath + "/ferry.json") {
            store = try Store.open(at: storePath, options: options)
        } else {
            store = try Store.create(at: storePath, name: "writer", options: options)
        }
        var live = try liveKeys(store)
        try OutputLines.emit("ready \(store.headSequence)")
        var documents = DocumentGenerator(random: SplitMix64(seed: seed ^ 0x5EED))
        var operation = 0
        while true {
            operation += 1
            if random.chance(10) {
                // Close and reopen now and then: snapshots get written, and recovery runs while
                // another writer may be alive.
                store.close()
                store = try Store.open(at: storePath, options: options)
                live = try liveKeys(store)
            }
            let count: Int
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<60: count = 1
            default: count = Int.random(in: 2...max(2, batchMaximum), using: &random)
            }
            var overlay = live
            var writes: [RecordWrite] = []
            var wants: [String] = ["try \(count)"]
            for index in 0..<count {
                let deleting = !overlay.isEmpty && random.chance(count == 1 ? 20 : 15)
                if deleting, let key = overlay.randomElement(using: &random) {
                    overlay.remove(key)
                    writes.append(.delete(key))
                    wants.append("want delete \(key.entity.rawValue)/\(key.id.rawValue) -")
                    continue
                }
                let key: RecordKey
                if !overlay.isEmpty && random.chance(50), let existing = overlay.randomElement(using: &random) {
                    key = existing
                } else {
                    let entity = try EntityName(TortureWriter.entities.randomElement(using: &random) ?? "Note")
                    let id = try RecordID(
                        TortureWriter.id(Int.random(in: 0..<400, using: &random), style: Int.random(in: 0..<6, using: &random)))
                    key = RecordKey(entity: entity, id: id)
                }
                overlay.insert(key)
                let document = documents.document(nonce: "\(seed)-\(operation)-\(index)")
                writes.append(.put(key, document))
                wants.append("want put \(key.entity.rawValue)/\(key.id.rawValue) \(OutputLines.hashToken(document))")
            }
            try OutputLines.emit(wants)
            let outcome: Result<WriteResult, StoreError>
            do throws(StoreError) { outcome = .success(try store.write(writes)) } catch { outcome = .failure(error) }
            let result: WriteResult
            switch outcome {
            case .success(let written):
                result = written
            case .failure(.recordNotFound):
                // Another writer deleted it first (two writers may share a store): nothing was
                // written; look again at what is live.
                try OutputLines.emit("rejected")
                live = try liveKeys(store)
                continue
            case .failure(let error):
                throw error
            }
            guard result.entries.count == writes.count else {
                throw TortureError.unexpected("batch of \(writes.count) writes made \(result.entries.count) journal entries")
            }
            // The want lines already carry each write's description: acknowledging costs no
            // hashing, so a kill after the journal append lands in the store's own work.
            let acks = zip(wants.dropFirst(), result.entries).map { want, entry in
                "ack \(entry.sequence) " + want.dropFirst("want ".count)
            }
            try OutputLines.emit(acks)
            live = overlay
        }
    }
}
