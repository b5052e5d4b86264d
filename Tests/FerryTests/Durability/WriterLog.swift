import Ferry

/// The output of one `ferry-torture writer` run, parsed: the batches it announced (`try` /
/// `want` lines) and the writes it acknowledged (`ack` lines).
struct WriterLog {
    /// One write as the writer announced or acknowledged it.
    struct Write: Equatable, CustomStringConvertible {
        var isDelete: Bool
        var key: RecordKey
        /// The document's canonical SHA-256 in hex; `nil` for a delete.
        var hash: String?

        var description: String { "\(isDelete ? "delete" : "put") \(key) \(hash ?? "-")" }
    }

    /// One batch: what was announced, and the sequences acknowledged for it so far.
    struct Batch {
        var wants: [Write]
        var acks: [(sequence: UInt64, write: Write)] = []
        var isAcknowledged: Bool { acks.count == wants.count }
    }

    /// The journal head the writer reported when it was ready, if it got that far.
    var readyHead: UInt64?
    var batches: [Batch] = []
    /// Lines that could not be read (reported as failures).
    var malformed: [String] = []

    /// Parses complete lines; a `try` group cut short by the kill is dropped (that batch was
    /// never attempted: the writer calls the store only after the whole group is written).
    init(lines: [String]) {
        var index = 0
        while index < lines.count {
            let fields = lines[index].split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            index += 1
            switch fields.first {
            case "ready":
                readyHead = fields.count == 2 ? UInt64(fields[1]) : nil
            case "try":
                guard fields.count == 2, let count = Int(fields[1]) else {
                    malformed.append(lines[index - 1])
                    continue
                }
                var wants: [Write] = []
                while wants.count < count, index < lines.count, lines[index].hasPrefix("want ") {
                    guard let write = WriterLog.write(Array(lines[index].split(separator: " ").dropFirst().map(String.init))) else {
                        malformed.append(lines[index])
                        break
                    }
                    wants.append(write)
                    index += 1
                }
                if wants.count == count { batches.append(Batch(wants: wants)) }
            case "rejected":
                // The last batch was refused before anything was written.
                if let last = batches.last, last.acks.isEmpty { batches.removeLast() } else { malformed.append(lines[index - 1]) }
            case "ack":
                guard fields.count == 5, let sequence = UInt64(fields[1]),
                    let write = WriterLog.write(Array(fields.dropFirst(2))), !batches.isEmpty
                else {
                    malformed.append(lines[index - 1])
                    continue
                }
                batches[batches.count - 1].acks.append((sequence, write))
            default:
                malformed.append(lines[index - 1])
            }
        }
    }

    /// Reads `<put|delete> <entity>/<id> <hash|->`.
    static func write(_ fields: [String]) -> Write? {
        guard fields.count == 3, let slash = fields[1].firstIndex(of: "/"),
            let entity = try? EntityName(String(fields[1][..<slash])),
            let id = try? RecordID(String(fields[1][fields[1].index(after: slash)...]))
        else { return nil }
        let key = RecordKey(entity: entity, id: id)
        switch fields[0] {
        case "put" where fields[2] != "-": return Write(isDelete: false, key: key, hash: fields[2])
        case "delete" where fields[2] == "-": return Write(isDelete: true, key: key, hash: nil)
        default: return nil
        }
    }
}
