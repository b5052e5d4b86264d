import Ferry

/// The output of one `ferry-torture syncer` run, parsed: the local edits it acknowledged and
/// how many syncs it completed.
struct SyncerLog {
    /// One acknowledged local edit.
    struct Edit {
        /// `A` or `B`: the store edited.
        var store: String
        var identity: ChangeIdentity
        var isDelete: Bool
        var key: RecordKey
        /// SHA-256 (hex) of the document's canonical bytes; `nil` for a delete.
        var hash: String?
    }

    var isReady = false
    var edits: [Edit] = []
    var completedSyncs = 0
    var malformed: [String] = []

    init(lines: [String]) {
        for line in lines {
            let fields = line.split(separator: " ").map(String.init)
            switch fields.first {
            case "ready": isReady = true
            case "synced": completedSyncs += 1
            case "ack":
                guard fields.count == 6, let edit = SyncerLog.edit(fields) else {
                    malformed.append(line)
                    continue
                }
                edits.append(edit)
            default: malformed.append(line)
            }
        }
    }

    /// Reads `ack <A|B> <origin>:<counter> <put|delete> <entity>/<id> <hash|->`.
    private static func edit(_ fields: [String]) -> Edit? {
        guard let colon = fields[2].lastIndex(of: ":"), let origin = ReplicaID(String(fields[2][..<colon])),
            let counter = UInt64(fields[2][fields[2].index(after: colon)...]),
            let slash = fields[4].firstIndex(of: "/"), let entity = try? EntityName(String(fields[4][..<slash])),
            let id = try? RecordID(String(fields[4][fields[4].index(after: slash)...]))
        else { return nil }
        let isDelete = fields[3] == "delete"
        guard isDelete == (fields[5] == "-"), isDelete || fields[3] == "put" else { return nil }
        return Edit(
            store: fields[1], identity: ChangeIdentity(origin: origin, counter: counter), isDelete: isDelete,
            key: RecordKey(entity: entity, id: id), hash: isDelete ? nil : fields[5])
    }
}
