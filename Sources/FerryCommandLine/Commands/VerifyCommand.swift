import Ferry

/// `ferry verify`: checks the journal's hash chain and that record files and the index agree
/// with it. Exits 0 when clean, 1 with findings.
enum VerifyCommand: Command {
    static let spec = CommandSpec(
        name: "verify",
        abstract: "Check the journal's hash chain and that the records match it.",
        discussion: """
            Reads the store's files without opening it (a damaged store can be checked; nothing \
            is repaired). Checks that every journal line is an entry whose hash matches its \
            content, that seq runs 1, 2, 3, … with no gaps across segments named after their \
            first entry, that each entry's prev is the hash of the one before, that the index \
            snapshot and the peers' checkpoints agree with the journal, that every record file \
            holds what replaying the journal gives, and that deleted records have no file.

            Each finding names the journal segment and line, or the file, and its kind: \
            tampering (an edited, removed, inserted, reordered or rewritten line, a truncated or \
            missing segment), an interrupted write (opening the store repairs it), an uncommitted \
            edit of a record file (run 'ferry commit'), or a stale index.

            Exit status: 0 clean, 1 findings, 2 when the store cannot be checked at all (not a store, \
            unreadable), as for 'ferry diff'.

            A store that joined from another store's state (see 'ferry sync --history') holds no \
            history before the join; '--against <peer>' proves the join: the peer's journal entry \
            at the join's position still has the hash the join was bound to, and replaying the \
            peer's journal up to it gives exactly the versions this store received.

            Given a hub (a folder holding hub.json, or s3://bucket/prefix), it reads every head and segment: \
            each segment's hash, the chain of segments in each head, and each change's digest and chain.
            """,
        arguments: [.optional("store", help: "The store directory, or a hub (default: the current directory).")],
        options: [
            .flag("json", help: "Print one JSON object with every finding."),
            .value("endpoint", valueName: "url", help: "The S3 endpoint, for an s3:// hub."),
            .value("against", valueName: "store", help: "Also prove the store's snapshot joins against the store they came from."),
            .value("with", valueName: "store", help: "An encrypted hub: the member's store whose key opens it (or $FERRY_HUB_PASSPHRASE)."),
        ],
        examples: ["ferry verify ./laptop"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let argument = arguments.positional("store") ?? "."
        // The one rule every peer argument is read by: a hub folder or s3:// is a hub.
        let address = try context.peerAddress(argument)
        switch address {
        case .hubFolder, .s3Hub:
            return try await verifyHub(argument, arguments: arguments, context: context)
        case .served, .backend:
            throw UsageError("\(argument): verify checks a store folder or a hub (a folder or s3://bucket/prefix)")
        case .store(let path):
            return try await verifyStore(at: path, arguments: arguments, context: context)
        }
    }

    /// Verifies the store at `path` (and, with `--against`, its joins).
    private static func verifyStore(at path: String, arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let report: VerificationReport
        let progress = ProgressLine.standardError("verify", context: context, enabled: !arguments.flag("json"))
        do {
            defer { progress.finish() }
            report = try StoreVerifier(path: path, lockTimeout: context.storeOptions().lockTimeout).verify(progress: progress.handler)
        } catch {
            // Findings are 1; a store that cannot be checked at all is an error, 2.
            throw CLIError(ErrorReporter.message(for: error), exitCode: .usage)
        }
        var checks: [JoinCheck] = []
        if let against = arguments.option("against") {
            checks = try checkJoins(of: path, against: against, base: report.snapshotJoins, context: context)
        }
        if arguments.flag("json") {
            var json = report.jsonValue
            if !checks.isEmpty, case .object(var members) = json {
                members["joins"] = .array(checks.map(\.jsonValue))
                json = .object(members)
            }
            context.printJSONLine(json)
        } else {
            context.stdout.write(text(report))
            for check in checks { context.stdout.write(text(check)) }
        }
        let statementsHold = (report.snapshotJoins?.joins ?? []).allSatisfy { !statementText($0).hasPrefix("problem:") }
        return report.isClean && statementsHold && checks.allSatisfy(\.isProven) ? .success : .failure
    }

    /// Checks each of the store's joins from `against` (a store) against it.
    static func checkJoins(of path: String, against: String, base: SnapshotJoins?, context: CommandContext) throws -> [JoinCheck] {
        let peerPath = context.absolutePath(against)
        guard !against.contains("://") else {
            throw CLIError("--against takes the folder of the store a join came from (for a served store, its folder on the server)", exitCode: .usage)
        }
        guard !FileSystem.exists(peerPath + "/" + HubDescriptor.key) else {
            throw CLIError("--against takes the store a join came from; a hub is checked with 'ferry verify \(against)'", exitCode: .usage)
        }
        let store = try context.openStore(path)
        defer { store.close() }
        let peer = try context.openStore(peerPath)
        defer { peer.close() }
        let joins = (base?.joins ?? []).filter { $0.position != nil && $0.source == peer.replicaID }
        guard !joins.isEmpty else {
            throw CLIError("\(path) never joined from a snapshot of \(against) (replica \(peer.replicaID)): there is no join to check", exitCode: .usage)
        }
        var checks: [JoinCheck] = []
        for join in joins { checks.append(try store.checkJoin(join, against: peer)) }
        return checks
    }

    static func text(_ check: JoinCheck) -> String {
        let position = check.join.position.map(String.init) ?? "?"
        if check.isProven {
            return "ok: the join from \(check.join.location) matches its journal up to entry \(position) "
                + "(hash \(check.join.snapshot.hex.prefix(12))): \(AuditText.plural(check.recordCount, "record")), "
                + "\(AuditText.plural(check.versionCount, "version")) received as the peer has them\n"
        }
        var text = "the join from \(check.join.location) at entry \(position) does not match:\n"
        for problem in check.problems { text += "  \(problem)\n" }
        return text
    }

    static func verifyHub(_ location: String, arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let base = try HubCommand.hubStorage(location, endpoint: arguments.option("endpoint"), context: context)
        let storage = try HubCommand.sealed(base, store: arguments.option("with").map { try context.openStore($0) }, context: context)
        var report: HubVerifier.Report
        let snapshotNotes: [String]
        do {
            report = try await HubVerifier(storage: storage).verify()
            let proof = try await HubSnapshotProof.verifyAll(in: storage)
            report.findings += proof.findings
            snapshotNotes = proof.notes
        } catch .locked {
            return try await verifyWithoutKey(storage, context: context, json: arguments.flag("json"))
        } catch {
            throw CLIError(error.description, exitCode: .usage)
        }
        if arguments.flag("json") {
            var json = report.jsonValue
            if case .object(var members) = json {
                members["snapshotNotes"] = .array(snapshotNotes.map { .string($0) })
                json = .object(members)
            }
            context.printJSONLine(json)
        } else {
            for finding in report.findings { context.stdout.line(finding) }
            for key in report.missing { context.stdout.line("\(key): listed by its head but not in the hub (not arrived yet, or lost)") }
            for note in snapshotNotes { context.stdout.line("note: \(note)") }
            for line in report.unprovable { context.stdout.line("note: \(line)") }
            var scope = "\(AuditText.plural(report.heads, "head")), \(AuditText.plural(report.segments, "segment")), "
                + "\(AuditText.plural(report.changes, "change"))"
            if report.snapshots > 0 || report.collected > 0 {
                scope += ", \(AuditText.plural(report.snapshots, "snapshot")) (\(report.collected) segments collected under them)"
            }
            if report.isClean {
                let snapshots = report.snapshots > 0 ? ", snapshots agree with the segments they cover" : ""
                context.stdout.line("ok: \(scope): segment hashes, segment chains and change digests intact\(snapshots)")
            } else {
                context.stdout.line("\(AuditText.plural(report.findings.count + report.missing.count, "finding")) in \(scope)")
            }
        }
        return report.isClean ? .success : .failure
    }

    /// An encrypted hub with no key given: what can be checked without opening anything, said as such.
    static func verifyWithoutKey(_ storage: SealedHubStorage, context: CommandContext, json: Bool) async throws -> ExitCode {
        let report: SealedHubCheck.Report
        do { report = try await SealedHubCheck.check(storage) } catch { throw CLIError(error.description, exitCode: .usage) }
        let unopened = "heads, segments, snapshots and change digests were not checked: they open only with the hub's key "
            + "(--with <member store>, or $\(HubCommand.passphraseVariable))"
        if json {
            context.printJSONLine([
                "clean": .bool(report.isClean), "encrypted": true, "withoutKey": true, "sealedObjects": .integer(Int64(report.sealedObjects)),
                "keyEntries": .integer(Int64(report.keyEntries)), "findings": .array(report.findings.map { .string($0) }),
                "notChecked": .string(unopened),
            ])
        } else {
            for finding in report.findings { context.stdout.line(finding) }
            let scope = "an encrypted hub, checked without its key: \(AuditText.plural(report.sealedObjects, "sealed object")) whole, "
                + "the newest of \(AuditText.plural(report.keyEntries, "key entry", "key entries")) signed by a member"
            context.stdout.line(report.isClean ? "ok: \(scope)" : "\(AuditText.plural(report.findings.count, "finding")) in \(scope)")
            context.stdout.line("note: \(unopened)")
        }
        return report.isClean ? .success : .failure
    }

    /// What a join rests on: its writer's signed statement of the state (a hub snapshot's
    /// manifest, a store's ``StateStatement``), checked again here.
    static func statementText(_ join: SnapshotJoins.Join) -> String {
        if join.position != nil { return storeStatementText(join) }
        guard let statement = join.statement?.objectValue else {
            return "the snapshot was not signed, so the state joined from it cannot be proven"
        }
        let bytes = JSONValue.object(statement).canonicalBytes() + [UInt8(ascii: "\n")]
        guard SHA256.hash(bytes) == join.snapshot else {
            return "problem: the signed statement kept for it is not that snapshot's manifest (.ferry/base.json altered)"
        }
        switch SignedObject.verdict(on: statement, domain: HubSnapshot.signatureDomain) {
        case .signed(let key): return "its state was signed by key \(key.short)… and proven when it joined (the signature checks)"
        case .unsigned: return "the snapshot was not signed, so the state joined from it cannot be proven"
        case .invalid(let reason): return "problem: the signed statement kept for it does not check: \(reason)"
        }
    }

    /// What a join from a store's state rests on: the store's signed statement, bound to the
    /// journal entry the join names and signed by the store's key.
    static func storeStatementText(_ join: SnapshotJoins.Join) -> String {
        guard let statement = join.statement else {
            return "the store did not sign its state (made before changes were signed, or an older ferry serve), so the state joined is its word"
        }
        guard let stated = try? StateStatement(json: statement), stated.replica == join.source, stated.position == join.position,
            stated.entryHash == join.snapshot
        else { return "problem: the signed statement kept for it is not of that state (.ferry/base.json altered)" }
        switch SignedObject.standing(of: SignedObject.signature(of: statement, domain: StateStatement.signatureDomain), for: join.source, held: nil) {
        case .owner(let key, _): return "its state was signed by the store's key \(key.short)… and proven when it joined (the signature checks)"
        case .unprovable: return "the store did not sign its state, so the state joined is its word"
        case .forged(let reason): return "problem: the signed statement kept for it does not check: \(reason)"
        }
    }

    static func text(_ report: VerificationReport) -> String {
        var text = ""
        for finding in report.findings { text += finding.description + "\n" }
        if let problem = report.snapshotJoinsProblem { text += problem + "\n" }
        for join in report.snapshotJoins?.joins ?? [] {
            if let position = join.position {
                text += "note: joined from the state of the store at \(join.location) as of its journal entry \(position) "
                    + "(hash \(join.snapshot.hex.prefix(12))) on \(ISO8601Milliseconds.format(milliseconds: join.started)) "
                    + "(journal entries up to \(join.sequence) here): history before it is not held here; " + statementText(join) + "; "
                    + (join.location.contains("://")
                        ? "'ferry verify <store> --against <folder>', given the served store's folder, proves the snapshot against its journal\n"
                        : "'ferry verify <store> --against \(join.location)' proves the snapshot against that store's journal\n")
                continue
            }
            text += "note: joined from snapshot \(join.snapshot.hex.prefix(12)) of the hub at \(join.location) on "
                + "\(ISO8601Milliseconds.format(milliseconds: join.started)) (journal entries up to \(join.sequence)): history before it "
                + "is not held here; 'ferry verify \(join.location)' checks the snapshot against the hub's segment; " + statementText(join) + "\n"
        }
        if let pending = report.snapshotJoins?.pending {
            text += "note: a join from the hub at \(pending.location) was stopped before it finished; 'ferry sync' with it finishes it\n"
        }
        if !report.unsignedChanges.isEmpty {
            let changes = report.unsignedChanges.values.reduce(0, +)
            text += "note: \(AuditText.plural(changes, "change")) of \(AuditText.plural(report.unsignedChanges.count, "replica")) that never signed "
                + "(made before changes were signed): their chain is checked, who made them cannot be proven\n"
        }
        if let archive = report.archive {
            let folders = archive.folders.joined(separator: ", ")
            text += archive.isPresent
                ? "note: journal history before seq \(archive.firstLiveSequence) is archived in \(folders): checked with the live journal as one chain (\(AuditText.plural(archive.archivedEntries, "archived entry", "archived entries")))\n"
                : "note: journal history before seq \(archive.firstLiveSequence) was archived to \(folders), which is not there: checked the live journal alone (from seq \(archive.firstLiveSequence), with \(AuditText.plural(archive.keptEntries, "kept entry", "kept entries")))\n"
        }
        let scope = "\(AuditText.plural(report.entryCount, "journal entry", "journal entries")) in "
            + "\(AuditText.plural(report.segmentCount, "segment")), \(AuditText.plural(report.recordCount, "live record"))"
        if report.isClean {
            var checks = ["hash chain intact", "no gaps"]
            if report.checkedIndex { checks.append("index agrees") }
            checks.append("record files match the journal")
            return text + "ok: \(scope): " + checks.joined(separator: ", ") + "\n"
        }
        let counts = report.counts.map { "\($0.count) \($0.category == .uncommittedEdit ? "uncommitted edit" : $0.category.label)" }
        text += "\(AuditText.plural(report.findings.count, "finding")) (\(counts.joined(separator: ", "))) in \(scope)\n"
        if !report.checkedRecords {
            text += "record files were not compared: the journal is damaged, so its replay proves nothing about them\n"
        }
        return text
    }
}
