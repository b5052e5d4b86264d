import Ferry

/// `ferry hub init|status|compact|reidentify <location>`: creates, inspects and compacts hubs
/// (a folder or an S3 prefix that replicas sync through without a server), and gives a copied
/// hub an id of its own.
enum HubCommand: Command {
    static let spec = CommandSpec(
        name: "hub",
        abstract: "Create a hub (a folder or s3:// prefix replicas sync through), show its state, or compact it.",
        discussion: """
            A hub is a folder (a cloud-drive folder, a share, a stick) or an S3 prefix that any number of replicas \
            sync with, at any time and concurrently, with no server and no lock: each replica writes only objects \
            of its own. Create one once, then 'ferry sync <store> <location>' from every replica.
            Actions: init creates an empty hub (a folder is created if missing; a location holding anything else is \
            refused); status lists the replicas (name, last sync, how far behind the newest), segments, snapshots and \
            bytes; compact writes a snapshot of the state (new replicas then join at the cost of the state, not the \
            history) and deletes the segments it covers that every replica seen within --keep (default 30d) has read. \
            A replica away longer re-joins from the snapshot on its next sync, without resurrecting deletions. \
            reidentify gives a copy of a hub (cp -r, aws s3 sync) an id of its own, so the copy and the original \
            can both be used; a sync names the copy when it meets one.
            S3 credentials and endpoint follow the AWS CLI: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, \
            AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_PROFILE with ~/.aws; \
            --endpoint overrides the endpoint.
             ferry hub init ~/Dropbox/notes-hub
             ferry hub init s3://team-bucket/notes --endpoint http://127.0.0.1:8333
             ferry hub status s3://team-bucket/notes --json
             ferry hub compact ~/Dropbox/notes-hub --keep 14d --dry-run
             ferry hub reidentify ~/Dropbox/notes-hub-copy
            members lists, adds or removes the replicas that may write to the hub (their keys), signed by the store \
            it runs from (--store, default: the current directory), which must be a member; the first add records that \
            store first. The first replica to sync with a new hub records itself as its first member (init --store \
            names it; init --open makes a hub any writer of its location may write to, until a list is started). \
            Once a hub has members, a sync refuses work from any other replica (--trust-new admits it) and a removed \
            member's later work; its earlier work stays.
             ferry hub members add ~/Dropbox/notes-hub ../desk --store laptop
             ferry hub members list ~/Dropbox/notes-hub
            init --encrypt makes an encrypted hub: every object but its keys is sealed (XChaCha20-Poly1305) under a \
            random data key, wrapped for each member, for the recovery key it prints once, and for the passphrase in \
            $FERRY_HUB_PASSPHRASE when set (never an argument). The store it runs from (--store, or the current \
            directory) is its first member. members add wraps the key for the new member; members remove rotates it \
            (the removed member keeps reading what it could before); rekey rewraps it (--rotate: a new key). \
            encrypt rewrites a plain hub encrypted, once every replica has read every segment.
             FERRY_HUB_PASSPHRASE=… ferry hub init ~/Dropbox/notes-hub --encrypt --store laptop
             ferry hub rekey ~/Dropbox/notes-hub --rotate --store laptop
            """,
        arguments: [
            .required("action", help: "init, status, compact, reidentify, members, rekey or encrypt."),
            .required("location", help: "A hub folder, or s3://bucket/prefix (for members: list, add or remove, then the hub)."),
            .optional("hub", help: "members: the hub."),
            .optional("member", help: "members add/remove: the replica's id, or its store's folder."),
        ],
        options: [
            .value("endpoint", valueName: "url", help: "The S3 endpoint (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, or AWS)."),
            .value("keep", valueName: "duration", help: "compact: replicas seen within this long must have read a segment before it goes (30d; also h, m)."),
            .flag("dry-run", help: "compact: say what would be written and deleted; change nothing."),
            .value("store", short: "s", valueName: "dir", help: "compact: the store whose key signs the snapshot (default: the current directory, when it is a store)."),
            .flag("open", help: "init: let any replica that can write to the location write to the hub (default: the first to sync becomes its first member)."),
            .flag("encrypt", help: "init: seal everything the hub holds (the passphrase comes from $FERRY_HUB_PASSPHRASE)."),
            .value("pad", valueName: "mode", help: "init --encrypt: pad sealed objects to hide sizes: none (default), power-of-two or 64KiB."),
            .value("scrypt-cost", valueName: "log2 N", help: "init --encrypt: the passphrase's scrypt cost as log2 N (default 17: 128 MiB)."),
            .flag("rotate", help: "rekey: make a new data key for what is written from now on."),
            .flag("json", help: "Print one JSON object."),
        ],
        examples: ["ferry hub status ~/Dropbox/notes-hub"])

    /// The environment variable a script gives an encrypted hub's passphrase in (never argv).
    static let passphraseVariable = "FERRY_HUB_PASSPHRASE"

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let action = try arguments.requiredPositional("action")
        let locationText = try arguments.requiredPositional("location")
        guard ["init", "status", "compact", "reidentify", "members", "rekey", "encrypt"].contains(action) else {
            throw UsageError("'\(action)' is not a hub action: use init, status, compact, reidentify, members, rekey or encrypt")
        }
        if action == "members" { return try await runMembers(arguments, context: context) }
        if arguments.positional("hub") != nil { throw UsageError("'ferry hub \(action)' takes one location") }
        if action != "init" && action != "encrypt" {
            for option in ["pad", "scrypt-cost"] where arguments.option(option) != nil { throw UsageError("--\(option) applies to 'ferry hub init --encrypt' only") }
        }
        if action != "init" {
            if arguments.flag("encrypt") { throw UsageError("--encrypt applies to 'ferry hub init' only") }
            if arguments.flag("open") { throw UsageError("--open applies to 'ferry hub init' only") }
        }
        if action != "rekey" && arguments.flag("rotate") { throw UsageError("--rotate applies to 'ferry hub rekey' only") }
        if action != "compact" {
            if arguments.option("store") != nil && action == "reidentify" { throw UsageError("--store does not apply to 'ferry hub reidentify'") }
            if arguments.option("keep") != nil { throw UsageError("--keep applies to 'ferry hub compact' only") }
            if arguments.flag("dry-run") { throw UsageError("--dry-run applies to 'ferry hub compact' only") }
        }
        let retention = try arguments.option("keep").map(parseDuration) ?? 30 * 86_400_000
        let base = try hubStorage(locationText, endpoint: arguments.option("endpoint"), context: context)
        if action == "init" { return try await runInit(base, locationText: locationText, arguments: arguments, context: context) }
        if action == "rekey" { return try await runRekey(base, arguments: arguments, context: context) }
        if action == "encrypt" { return try await runEncrypt(base, arguments: arguments, context: context) }
        let storage = action == "reidentify" ? base : try sealed(base, arguments: arguments, context: context)
        switch action {
        case "reidentify":
            let (old, new) = try await Hub.reidentify(storage)
            if arguments.flag("json") {
                context.printJSONLine([
                    "location": .string(storage.location), "oldHub": .string(old.id.rawValue), "hub": .string(new.id.rawValue),
                ])
            } else {
                context.stdout.line("the hub at \(storage.location) was \(old.id.short) and is now \(new.id.short)")
                context.stdout.line("replicas that synced it before exchange every change with it once on their next sync")
            }
        case "compact":
            var compactor = HubCompactor(storage: storage, retentionMilliseconds: retention, dryRun: arguments.flag("dry-run"))
            let signer = try signingStore(arguments, context: context)
            if let signer {
                defer { signer.close() }
                try compactor.sign(as: signer)
            }
            var report = try await compactor.compact()
            if signer == nil && report.wroteSnapshot {
                report.notes.append(
                    "the snapshot is unsigned (no store given: --store): replicas joining from it cannot prove its state; "
                        + "compact from a replica's store to sign it")
            }
            if arguments.flag("json") {
                context.printJSONLine(report.jsonValue)
            } else {
                context.stdout.write(text(report))
            }
        default:
            let status = try await Hub.status(of: storage)
            if arguments.flag("json") {
                context.printJSONLine(status.jsonValue)
            } else {
                context.stdout.write(text(status))
            }
        }
        return .success
    }

    /// `storage` as an encrypted hub is opened with: the key of the store (`--store`, or the
    /// current directory when it is one) and the passphrase in `$FERRY_HUB_PASSPHRASE`; a plain
    /// hub passes through.
    static func sealed(_ storage: any HubStorage, arguments: ParsedArguments, context: CommandContext) throws -> SealedHubStorage {
        try sealed(storage, store: signingStore(arguments, context: context), context: context)
    }

    /// `storage` opened with `store`'s key (closed here) and the passphrase in the environment.
    static func sealed(_ storage: any HubStorage, store: Store?, context: CommandContext) throws -> SealedHubStorage {
        defer { store?.close() }
        var access = try HubKeyAccess(store: store, passphrase: context.environment[passphraseVariable])
        let location = storage.location
        access.askPassphrase = { PassphrasePrompt.ask(for: location) }
        return SealedHubStorage(base: storage, access: access)
    }

    /// The storage a location names. An `s3://` location in a program without an HTTP client
    /// hands the command to `ferry-remote`.
    static func hubStorage(_ text: String, endpoint: String?, context: CommandContext) throws -> any HubStorage {
        let location = try context.peerAddress(text)
        switch location {
        case .s3Hub:
            let httpClient = try context.httpClientOrHandOff(for: text)
            return try location.hubStorage(
                httpClient: httpClient, s3: S3Configuration.fromEnvironment(context.environment, endpoint: endpoint))
        case .served, .backend:
            throw UsageError("\(text): a hub is a folder or an s3://bucket/prefix location")
        case .store, .hubFolder:
            return try location.hubStorage(httpClient: nil)
        }
    }

    /// The store whose key signs what this command writes to the hub: `--store`, else the
    /// current directory when it is a store; `nil` when neither names one.
    static func signingStore(_ arguments: ParsedArguments, context: CommandContext) throws -> Store? {
        if let path = arguments.option("store") { return try context.openStore(path) }
        guard FileSystem.exists(context.absolutePath(".") + "/ferry.json") else { return nil }
        return try context.openStore(".")
    }

    /// `30d`, `12h`, `90m`, `45s`, in milliseconds.
    static func parseDuration(_ text: String) throws -> UInt64 {
        let units: [Character: UInt64] = ["d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1_000]
        guard let unit = text.last.flatMap({ units[$0] }), let count = UInt64(text.dropLast()), count <= 100_000 else {
            throw UsageError("--keep \(text): give a whole number and a unit, like 30d, 12h, 90m or 45s")
        }
        return count * unit
    }

    static func text(_ report: HubCompactor.Report) -> String {
        let would = report.dryRun
        var lines: [String] = []
        if let snapshot = report.snapshot {
            let verb = report.wroteSnapshot ? "wrote" : would ? "would write" : "kept"
            lines.append(
                "\(verb) snapshot \(snapshot.hex.prefix(12)): \(AuditText.plural(report.records, "record")), "
                    + "\(AuditText.plural(report.versions, "version")), covering \(AuditText.plural(Int(report.coveredSegments), "segment"))")
        }
        lines.append(
            "\(would ? "would delete" : "deleted") \(AuditText.plural(report.deletedSegments, "segment"))"
                + (report.deletedSnapshots > 0 ? " and \(AuditText.plural(report.deletedSnapshots, "older snapshot"))" : "")
                + " (\(ProgressLine.grouped(Int(clamping: report.deletedBytes))) bytes)")
        for item in report.waitingFor {
            lines.append("  kept \(AuditText.plural(item.segments, "segment")) that \(item.name ?? item.replica.short) (\(item.replica.short)) has not read yet")
        }
        for item in report.away {
            lines.append(
                "  \(item.name ?? item.replica.short) (\(item.replica.short)) last synced \(ISO8601Milliseconds.format(milliseconds: item.lastSeen)), "
                    + "before the retention window: it will re-join from the snapshot")
        }
        for note in report.notes { lines.append("  note: \(note)") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func text(_ status: HubStatus) -> String {
        var lines = [
            "hub \(status.descriptor.id.short) at \(status.location) (format \(status.descriptor.format), created "
                + "\(ISO8601Milliseconds.format(milliseconds: status.descriptor.created)))"
                + (status.descriptor.isOpenToAnyWriter ? ", open to any writer of its location (hub init --open)" : ""),
            "\(AuditText.plural(status.replicas.count, "replica")), \(AuditText.plural(status.segmentCount, "segment")), "
                + "\(AuditText.plural(status.snapshotCount, "snapshot")), \(status.byteCount) bytes",
        ]
        for replica in status.replicas {
            var line = "  \(replica.name ?? replica.replica.short) (\(replica.replica.short)): last sync "
                + "\(ISO8601Milliseconds.format(milliseconds: replica.lastSeen))"
            if replica.behindNewest >= 1000 { line += String(format: ", %.0f s behind the newest", Double(replica.behindNewest) / 1000) }
            line += ", \(AuditText.plural(replica.segments, "segment")), \(AuditText.plural(replica.changes, "change")), "
                + "\(replica.records) records"
            if replica.unreadChanges > 0 { line += ", \(replica.unreadChanges) changes of others not read yet" }
            if replica.collectedSegments > 0 { line += ", \(replica.collectedSegments) collected" }
            if replica.missingSegments > 0 { line += ", \(replica.missingSegments) segments not arrived" }
            if !replica.isSigned { line += ", head not signed (written before heads were signed)" }
            lines.append(line)
        }
        for snapshot in status.snapshots {
            lines.append(
                "  snapshot \(snapshot.id.hex.prefix(12)): \(snapshot.records) records (\(snapshot.liveRecords) live), "
                    + "\(snapshot.versions) versions, covers \(snapshot.coveredSegments) segments, \(ProgressLine.grouped(Int(clamping: snapshot.bytes))) bytes")
        }
        for key in status.ignored { lines.append("  ignored (not written by Ferry): \(key)") }
        for problem in status.unreadable { lines.append("  unreadable: \(problem)") }
        for line in status.rewritten { lines.append("  warning: \(line)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
