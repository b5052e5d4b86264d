import Ferry

/// `ferry hub members list|add|remove <hub> [<replica id or store folder>]`: the replicas that
/// may write to a hub, signed by the store the command runs from (`--store`, or the current
/// directory).
extension HubCommand {
    static func runMembers(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let action = try arguments.requiredPositional("location")
        guard let hubText = arguments.positional("hub") else {
            throw UsageError("give the hub: ferry hub members \(action) <hub>\(action == "list" ? "" : " <replica id or store folder>")")
        }
        let storage = try sealed(hubStorage(hubText, endpoint: arguments.option("endpoint"), context: context), arguments: arguments, context: context)
        let members: HubMembers?
        var rekeyed: Hub.Rekeying?
        var changed: ReplicaID?
        switch action {
        case "list":
            if arguments.positional("member") != nil { throw UsageError("'ferry hub members list' takes only the hub") }
            members = try await HubMembers.load(from: storage).members
        case "add", "remove":
            guard let target = arguments.positional("member") else { throw UsageError("give the replica's id or its store's folder") }
            guard let store = try signingStore(arguments, context: context) else {
                throw UsageError("run it from a member's store, or give one with --store: the store's key signs the change")
            }
            defer { store.close() }
            var replica: ReplicaID
            var key: ReplicaPublicKey?
            var name: String?
            if let id = ReplicaID(target) {
                replica = id
            } else {
                let other = try context.openStore(target)
                defer { other.close() }
                (replica, key, name) = (other.replicaID, try other.publicKey(), other.replicaName)
            }
            members = try await HubMembers.change(
                action == "add" ? .add : .remove, replica: replica, key: key, name: name, in: storage, as: store)
            // An encrypted hub wraps its keys for the new member; a removal rotates them. The
            // list is changed already: a failure here must say what is left to do.
            do { rekeyed = try await Hub.rekey(storage, as: store, rotate: action == "remove") } catch {
                let done = action == "remove" ? "replica \(replica) was removed from the members" : "replica \(replica) was added to the members"
                let left = action == "remove"
                    ? "the data key was not rotated, so it could still read what is written next"
                    : "the hub's keys were not wrapped for it, so it cannot open the hub yet"
                throw CLIError("\(done), but \(left) (\(error)); run 'ferry hub rekey \(storage.location)\(action == "remove" ? " --rotate" : "")' to finish")
            }
            changed = replica
        default:
            throw UsageError("'\(action)' is not a members action: use list, add or remove")
        }
        if arguments.flag("json") {
            context.printJSONLine(json(members))
        } else {
            context.stdout.write(text(members, location: storage.location))
            if let rekeyed { say(rekeyed, removed: action == "remove" ? changed : nil, context: context, json: false) }
        }
        return .success
    }

    static func json(_ members: HubMembers?) -> JSONValue {
        let all = (members?.members.values.sorted { $0.added < $1.added }) ?? []
        return [
            "entries": .integer(Int64(members?.entries.count ?? 0)),
            "members": .array(all.map { member in
                [
                    "replica": .string(member.replica.rawValue), "key": .string(member.key.hex), "name": member.name.map { .string($0) } ?? .null,
                    "added": .integer(Int64(member.added)), "removed": member.removed.map { .integer(Int64($0.entry)) } ?? .null,
                    "keptSegments": member.removed.map { .integer(Int64(clamping: $0.segments)) } ?? .null,
                ]
            }),
        ]
    }

    static func text(_ members: HubMembers?, location: String) -> String {
        guard let members else {
            return "the hub at \(location) has no members list: any replica may write to it ('ferry hub members add' starts one)\n"
        }
        var lines = ["\(AuditText.plural(members.current.count, "member")) of the hub at \(location) (\(AuditText.plural(members.entries.count, "signed entry", "signed entries")))"]
        for member in members.members.values.sorted(by: { $0.added < $1.added }) {
            var line = "  \(member.name ?? member.replica.short) \(member.replica) key \(member.key.short)…"
            if let removed = member.removed {
                line += " removed (entry \(removed.entry)): its first \(AuditText.plural(Int(clamping: removed.segments), "segment")) stay valid"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
