import Ferry

/// `ferry hub init|status <location>`: creates and inspects hubs (a folder or an S3 prefix
/// that replicas sync through without a server).
enum HubCommand: Command {
    static let spec = CommandSpec(
        name: "hub",
        abstract: "Create a hub (a folder or s3:// prefix replicas sync through) or show its state.",
        discussion: """
            A hub is a folder (a cloud-drive folder, a share, a stick) or an S3 prefix that any number of replicas \
            sync with, at any time and concurrently, with no server and no lock: each replica writes only objects \
            of its own. Create one once, then 'ferry sync <store> <location>' from every replica.
            Actions: init creates an empty hub (a folder is created if missing; a location holding anything else is \
            refused); status lists the replicas (name, last sync, how far behind the newest), segments and bytes.
            S3 credentials and endpoint follow the AWS CLI: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, \
            AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_PROFILE with ~/.aws; \
            --endpoint overrides the endpoint.
             ferry hub init ~/Dropbox/notes-hub
             ferry hub init s3://team-bucket/notes --endpoint http://127.0.0.1:8333
             ferry hub status s3://team-bucket/notes --json
            """,
        arguments: [
            .required("action", help: "init or status."),
            .required("location", help: "A hub folder, or s3://bucket/prefix."),
        ],
        options: [
            .value("endpoint", valueName: "url", help: "The S3 endpoint (default: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, or AWS)."),
            .flag("json", help: "Print one JSON object."),
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let action = try arguments.requiredPositional("action")
        let locationText = try arguments.requiredPositional("location")
        guard ["init", "status"].contains(action) else {
            throw UsageError("'\(action)' is not a hub action: use init or status")
        }
        let storage = try hubStorage(locationText, endpoint: arguments.option("endpoint"), context: context)
        switch action {
        case "init":
            let descriptor = try await Hub.create(in: storage)
            if arguments.flag("json") {
                context.printJSONLine([
                    "location": .string(storage.location), "hub": .string(descriptor.id.rawValue), "format": .integer(descriptor.format),
                ])
            } else {
                context.stdout.line("created hub \(descriptor.id.short) at \(storage.location)")
                context.stdout.line("sync a store with it: ferry sync <store> \(locationText)")
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

    /// The storage a location names. An `s3://` location in a program without an HTTP client
    /// hands the command to `ferry-remote`.
    static func hubStorage(_ text: String, endpoint: String?, context: CommandContext) throws -> any HubStorage {
        let location = try SyncPeer.classify(text, resolvingFolder: context.absolutePath)
        switch location {
        case .s3:
            let httpClient = try context.httpClientOrHandOff(for: text)
            return try location.hubStorage(
                httpClient: httpClient, s3: S3Configuration.fromEnvironment(context.environment, endpoint: endpoint))
        case .remote:
            throw UsageError("\(text): a hub is a folder or an s3://bucket/prefix location")
        case .folder, .hubFolder:
            return try location.hubStorage(httpClient: nil)
        }
    }

    static func text(_ status: HubStatus) -> String {
        var lines = [
            "hub \(status.descriptor.id.short) at \(status.location) (format \(status.descriptor.format), created "
                + "\(ISO8601Milliseconds.format(milliseconds: status.descriptor.created)))",
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
            if replica.missingSegments > 0 { line += ", \(replica.missingSegments) segments not arrived" }
            lines.append(line)
        }
        for key in status.ignored { lines.append("  ignored (not written by Ferry): \(key)") }
        for problem in status.unreadable { lines.append("  unreadable: \(problem)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
