import Ferry

/// `ferry hub init [--encrypt]` and `ferry hub rekey`: making a hub (encrypted, with the store
/// it runs from as its first member) and changing the keys that open it.
extension HubCommand {
    static func runInit(_ storage: any HubStorage, locationText: String, arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        guard arguments.flag("encrypt") else {
            for option in ["pad", "scrypt-cost"] where arguments.option(option) != nil { throw UsageError("--\(option) applies to 'ferry hub init --encrypt' only") }
            // With --store, the store is the hub's first member: no other writer until it adds one.
            let founder = try arguments.option("store").map { try context.openStore($0) }
            defer { founder?.close() }
            let open = arguments.flag("open")
            if open && founder != nil { throw UsageError("--open and --store contradict each other: a hub with a first member admits only the replicas its members add") }
            let descriptor = try await Hub.create(in: storage, founder: founder, openToAnyWriter: open)
            if arguments.flag("json") {
                context.printJSONLine([
                    "location": .string(storage.location), "hub": .string(descriptor.id.rawValue), "format": .integer(descriptor.format),
                    "member": founder.map { .string($0.replicaID.rawValue) } ?? .null, "writers": open ? "anyone" : "members",
                ])
            } else {
                context.stdout.line("created hub \(descriptor.id.short) at \(storage.location)")
                if let founder {
                    context.stdout.line("its first member is replica \(founder.replicaID) (\(founder.path)); add others with 'ferry hub members add'")
                } else if open {
                    context.stdout.line("it is open: any replica that can write to \(storage.location) may write to the hub ('ferry hub members add' closes it)")
                } else {
                    context.stdout.line("the first store to sync with it becomes its first member; add others with 'ferry hub members add' from a member's store")
                }
                context.stdout.line("sync a store with it: ferry sync <store> \(locationText)")
            }
            return .success
        }
        if arguments.flag("open") {
            throw UsageError("--open applies to plain hubs: an encrypted hub made without a store is open to whoever holds its passphrase")
        }
        let (padding, cost) = try sealingOptions(arguments)
        let founder = try signingStore(arguments, context: context)
        defer { founder?.close() }
        let passphrase = context.environment[passphraseVariable].flatMap { $0.isEmpty ? nil : $0 }
        guard founder != nil || passphrase != nil else {
            throw UsageError("an encrypted hub needs a first member (run it in a store, or give one with --store) or a passphrase in $\(passphraseVariable)")
        }
        let creation = try await Hub.createEncrypted(in: storage, founder: founder, passphrase: passphrase, padding: padding, passphraseCost: cost)
        if arguments.flag("json") {
            context.printJSONLine([
                "location": .string(storage.location), "hub": .string(creation.descriptor.id.rawValue), "format": .integer(creation.descriptor.format),
                "encrypted": true, "keys": .string(creation.keysKey), "member": founder.map { .string($0.replicaID.rawValue) } ?? .null,
                "passphrase": .bool(passphrase != nil), "recoveryKey": .string(creation.recoveryKey.text),
            ])
        } else {
            context.stdout.line("created encrypted hub \(creation.descriptor.id.short) at \(storage.location)")
            let openers = (founder.map { ["replica \($0.replicaID.short) (this store, its first member)"] } ?? []) + ["the recovery key"] + (passphrase == nil ? [] : ["the passphrase"])
            context.stdout.line("its data key is wrapped in \(creation.keysKey) for \(openers.joined(separator: ", "))")
            context.stdout.line("recovery key (shown this once; keep it offline, it opens the hub when every key is lost):")
            context.stdout.line("  \(creation.recoveryKey.text)")
            if passphrase == nil { context.stdout.line("no passphrase was set ($\(passphraseVariable) was empty); 'ferry hub members add' lets other stores in") }
            if founder == nil { context.stdout.line("the hub has no members: any store with the passphrase may write to it ('ferry hub members add' starts a list)") }
        }
        return .success
    }

    /// `--pad` and `--scrypt-cost`.
    static func sealingOptions(_ arguments: ParsedArguments) throws -> (HubPadding, Int) {
        let padding = try arguments.option("pad").map { text in
            guard let padding = HubPadding(rawValue: text) else { throw UsageError("--pad takes none, power-of-two or 64KiB, not '\(text)'") }
            return padding
        } ?? .none
        var cost = Hub.defaultPassphraseCost
        if let text = arguments.option("scrypt-cost") {
            guard let log = Int(text), (10...20).contains(log) else { throw UsageError("--scrypt-cost takes log2 N from 10 to 20, not '\(text)'") }
            cost = 1 << log
        }
        return (padding, cost)
    }

    static func runEncrypt(_ storage: any HubStorage, arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let (padding, cost) = try sealingOptions(arguments)
        let store = try signingStore(arguments, context: context)
        defer { store?.close() }
        let passphrase = context.environment[passphraseVariable].flatMap { $0.isEmpty ? nil : $0 }
        let creation = try await Hub.encrypt(storage, as: store, passphrase: passphrase, padding: padding, passphraseCost: cost)
        if arguments.flag("json") {
            context.printJSONLine([
                "location": .string(storage.location), "hub": .string(creation.descriptor.id.rawValue), "encrypted": true,
                "keys": .string(creation.keysKey), "recoveryKey": .string(creation.recoveryKey.text),
            ])
        } else {
            context.stdout.line("encrypted hub \(creation.descriptor.id.short) at \(storage.location): every object was written again sealed")
            context.stdout.line("its data key is wrapped in \(creation.keysKey) for its members (or this store), the recovery key\(passphrase == nil ? "" : ", the passphrase")")
            context.stdout.line("recovery key (shown this once; keep it offline, it opens the hub when every key is lost):")
            context.stdout.line("  \(creation.recoveryKey.text)")
        }
        return .success
    }

    static func runRekey(_ storage: any HubStorage, arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        guard let store = try signingStore(arguments, context: context) else {
            throw UsageError("run it from a member's store, or give one with --store: the store's key signs the hub's keys")
        }
        defer { store.close() }
        guard let rekeyed = try await Hub.rekey(storage, as: store, rotate: arguments.flag("rotate")) else {
            throw CLIError("\(storage.location) is not an encrypted hub; nothing was changed", exitCode: .usage)
        }
        say(rekeyed, context: context, json: arguments.flag("json"))
        return .success
    }

    /// What a change of keys did, in words (or one JSON object).
    static func say(_ rekeyed: Hub.Rekeying, removed: ReplicaID? = nil, context: CommandContext, json: Bool) {
        if json {
            context.printJSONLine([
                "keys": .string(rekeyed.key), "rotated": .bool(rekeyed.rotated), "members": .array(rekeyed.members.map { .string($0.rawValue) }),
                "passphrase": .bool(rekeyed.passphrase), "recovery": .bool(rekeyed.recovery),
            ])
            return
        }
        var openers = rekeyed.members.map { "replica \($0.short)" }
        if rekeyed.recovery { openers.append("the recovery key") }
        if rekeyed.passphrase { openers.append("the passphrase") }
        context.stdout.line("the hub's keys are wrapped in \(rekeyed.key) for \(openers.joined(separator: ", "))")
        if rekeyed.rotated {
            let who = removed.map { "replica \($0.short)" } ?? "a store that is no longer a recipient"
            context.stdout.line(
                "a new data key seals everything written from now on: \(who) cannot read it, but can still read what was written before")
        }
    }
}
