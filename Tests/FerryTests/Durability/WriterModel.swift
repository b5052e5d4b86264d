import Ferry

/// What the writer's store must hold: the journal entries acknowledged (or found to have
/// survived a kill), in sequence order, and the resulting content of every record.
struct WriterModel {
    /// Entry `n` of the journal is `entries[n - 1]`.
    private(set) var entries: [WriterLog.Write] = []
    /// Each record's expected content hash; `nil` once deleted.
    private(set) var contents: [RecordKey: String?] = [:]

    /// The journal head the store must have.
    var head: UInt64 { UInt64(entries.count) }

    /// Adds the next journal entry.
    mutating func append(_ write: WriterLog.Write) {
        entries.append(write)
        contents[write.key] = .some(write.hash)
    }

    /// The live records of `entity`, with their hashes.
    func live(in entity: EntityName) -> [RecordID: String] {
        var result: [RecordID: String] = [:]
        for (key, hash) in contents where key.entity == entity {
            if let hash { result[key.id] = hash }
        }
        return result
    }

    /// The entities ever written.
    var entities: Set<EntityName> { Set(contents.keys.map(\.entity)) }
}
