import Ferry

/// `ferry sync <store> <name>` and `ferry sync <store>`: syncing with the peers named by
/// `ferry remote add`, with the options each was added with.
extension SyncCommand {
    /// The options a named peer remembers: those that say how to sync with it. Never a
    /// credential: `--token` is refused by `ferry remote add`, and `--token-file` is a path.
    static let rememberedValues = [
        "policy", "entities", "mapping", "purge-after", "endpoint", "token-file", "max-delete", "max-delete-count", "max-skew", "history",
    ]
    static let rememberedFlags = ["pull-only", "push-only", "no-commit"]

    /// The store's named peers (none when it has no file, or `storePath` is no folder).
    static func namedPeers(of storePath: String, context: CommandContext) throws -> NamedPeers {
        try NamedPeers.load(from: StoreLayout(root: context.absolutePath(storePath)))
    }

    /// The named peer `text` names, when it is the name of one of the store's; `nil` for a path
    /// or a URL. A name that is also a folder here is refused (`./name` says the folder); a
    /// word that is neither, close to a peer's name, gets "did you mean".
    static func namedPeer(_ text: String, storePath: String, context: CommandContext) throws -> NamedPeers.Peer? {
        guard NamedPeers.isValidName(text) else { return nil }
        let peers = try namedPeers(of: storePath, context: context)
        let isFolder = FileSystem.exists(context.absolutePath(text))
        guard let peer = peers.peers[text] else {
            if !isFolder, let suggestion = NameSuggestion.closest(to: text, among: Array(peers.peers.keys)) {
                throw UsageError("\(text) is neither a folder nor a named peer of \(storePath); did you mean '\(suggestion)'?")
            }
            return nil
        }
        if isFolder {
            throw UsageError("\(text) is both a named peer of \(storePath) and a folder here: write ./\(text) for the folder")
        }
        return peer
    }

    /// `ferry sync <store>`: every named peer, in the order of their names. Each is said, then
    /// reported; one that fails is reported as an error and the others still sync; the exit
    /// status is non-zero when any failed.
    static func syncEveryNamedPeer(_ arguments: ParsedArguments, storePath: String, context: CommandContext) async throws -> ExitCode {
        let peers = try namedPeers(of: storePath, context: context).sorted
        guard let first = peers.first else {
            throw UsageError("give a peer to sync \(storePath) with, or name one first: ferry remote add NAME LOCATION --store \(storePath)")
        }
        if arguments.flag("watch") {
            throw UsageError("--watch follows one peer: name it (ferry sync \(storePath) \(first.name) --watch)")
        }
        // One peer over the network sends the whole command to ferry-remote, which syncs them all.
        if peers.contains(where: { (try? context.peerAddress($0.location))?.needsHTTPClient == true }) {
            _ = try context.httpClientOrHandOff(for: first.location)
        }
        var failed: [String] = []
        for peer in peers {
            if !arguments.flag("json") { context.stdout.line("syncing with \(peer.name) (\(peer.location))") }
            do {
                let status = try await syncOnce(arguments.remembering(peer), storePath: storePath, context: context, named: peer.name)
                if status != .success { failed.append(peer.name) }
            } catch {
                context.stderr.line("error: \(peer.name): \(ErrorReporter.message(for: error))")
                failed.append(peer.name)
            }
        }
        guard failed.isEmpty else {
            context.stderr.line(
                "error: \(failed.count) of \(AuditText.plural(peers.count, "named peer")) failed: \(failed.joined(separator: ", ")); the others synced")
            return .failure
        }
        return .success
    }
}

extension ParsedArguments {
    /// These arguments with a named peer's location as the peer, and its remembered options
    /// under those given (a value given on the command line wins).
    func remembering(_ peer: NamedPeers.Peer) -> ParsedArguments {
        var values: [String: String] = [:]
        var flags = Set<String>()
        for (name, value) in peer.options where spec.option(named: name) != nil {
            switch value {
            case .bool(true): flags.insert(name)
            case .string(let text): values[name] = text
            case .integer(let number): values[name] = String(number)
            default: continue
            }
        }
        return joining(positionals: ["peer": peer.location], options: values, flags: flags)
    }
}
