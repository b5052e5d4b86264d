import Ferry

/// `ferry remote add|list|remove`: the peers a store syncs with by name, and the sync options
/// each remembers (kept in `.ferry/remotes.json`, never with a credential).
enum RemoteCommand: Command {
    static let spec = CommandSpec(
        name: "remote",
        abstract: "Name the peers a store syncs with, with their options: add, list, remove.",
        discussion: """
            add NAME LOCATION remembers a peer (a store folder, a hub, a 'ferry serve' URL or a PocketBase) under a \
            name, with the sync options given (--policy, --entities, --mapping, --purge-after, --endpoint, --token-file, \
            --max-delete, --max-delete-count, --max-skew, --history, --pull-only, --push-only, --no-commit); adding a \
            name again replaces it. Then 'ferry sync <store> NAME' syncs with it, and 'ferry sync <store>' with every \
            named peer in turn. A name is letters, digits, '.', '_' and '-'. The location is checked as 'ferry sync' \
            reads it; paths (the location, --mapping, --token-file) are kept absolute, and a mapping file is read again \
            at each sync.
            Credentials are never written to the store: a URL with a user or password in it and --token are refused. \
            Give them at sync time as today: FERRY_TOKEN or --token-file for 'ferry serve', POCKETBASE_EMAIL and \
            POCKETBASE_PASSWORD (or POCKETBASE_TOKEN) for a PocketBase, the AWS variables or ~/.aws for S3.
             ferry remote add usb /media/usb/data --store ./laptop
             ferry remote add kitchen pocketbase+http://127.0.0.1:8090 --entities Note --policy merge --store ./laptop
             ferry remote list --store ./laptop --json
             ferry remote remove usb --store ./laptop
            """,
        arguments: [
            .required("action", help: "add, list or remove."),
            .optional("name", help: "The peer's name (add, remove)."),
            .optional("location", help: "Where the peer is, as 'ferry sync' takes it (add)."),
        ],
        options: [
            .value("store", short: "s", valueName: "dir", help: "The store directory (default: the current directory)."),
            .flag("json", help: "list: print one JSON object."),
            .value("token", valueName: "token", help: "Refused: a token is never written to the store (use FERRY_TOKEN or --token-file)."),
        ] + SyncCommand.spec.options.filter { (SyncCommand.rememberedValues + SyncCommand.rememberedFlags).contains($0.name) }.map {
            var option = $0
            option.defaultValue = nil
            option.help = "add: " + option.help
            return option
        },
        examples: ["ferry remote add usb /media/usb/data --store ./laptop", "ferry remote list"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let action = try arguments.requiredPositional("action")
        let storePath = arguments.option("store") ?? "."
        let actions = ["add", "list", "remove"]
        guard actions.contains(action) else {
            let suggestion = NameSuggestion.closest(to: action, among: actions).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError("'\(action)' is not a remote action\(suggestion) (use add, list or remove)")
        }
        if action != "add" {
            for option in SyncCommand.rememberedValues + ["token"] where arguments.option(option) != nil {
                throw UsageError("--\(option) is for 'ferry remote add'")
            }
            for flag in SyncCommand.rememberedFlags where arguments.flag(flag) { throw UsageError("--\(flag) is for 'ferry remote add'") }
            if arguments.positional("location") != nil { throw UsageError("a location is for 'ferry remote add'") }
        }
        if action != "list" && arguments.flag("json") { throw UsageError("--json is for 'ferry remote list'") }
        // The store must be one: its folder is opened (and its lock taken) for every action.
        let store = try context.openStore(storePath)
        defer { store.close() }
        switch action {
        case "add":
            let peer = try peerToAdd(arguments, context: context)
            let replaced = try store.updateNamedPeers { peers in
                defer { peers.add(peer) }
                return peers.peers[peer.name] != nil
            }
            context.stdout.line("\(replaced ? "replaced" : "added") \(peer.name): \(describe(peer))")
        case "remove":
            let name = try arguments.requiredPositional("name")
            guard try store.updateNamedPeers({ $0.remove(named: name) }) != nil else {
                throw unknown(name, among: try NamedPeers.load(from: store.layout), storePath: storePath)
            }
            context.stdout.line("removed \(name)")
        default:
            if arguments.positional("name") != nil { throw UsageError("'ferry remote list' takes no name") }
            let peers = try NamedPeers.load(from: store.layout)
            if arguments.flag("json") {
                context.printJSONLine(peers.jsonValue)
            } else if peers.peers.isEmpty {
                context.stdout.line("no named peers (add one: ferry remote add NAME LOCATION)")
            } else {
                for peer in peers.sorted { context.stdout.line("\(peer.name)  \(describe(peer))") }
            }
        }
        return .success
    }

    /// The peer `add` names, checked: its name, its location read as `ferry sync` reads it and
    /// free of credentials, and its options checked as `ferry sync` checks them.
    static func peerToAdd(_ arguments: ParsedArguments, context: CommandContext) throws -> NamedPeers.Peer {
        let name = try arguments.requiredPositional("name")
        guard NamedPeers.isValidName(name) else {
            throw UsageError("'\(name)' cannot name a peer: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or a digit")
        }
        guard let text = arguments.positional("location") else {
            throw UsageError("give the peer's location: ferry remote add \(name) LOCATION")
        }
        if arguments.option("token") != nil {
            throw UsageError("a token is never written to the store: give it at sync time (FERRY_TOKEN), or remember a file that holds it (--token-file)")
        }
        try refuseCredentials(in: text)
        let address = try context.peerAddress(text)
        let location: String
        switch address {
        case .store(let path), .hubFolder(let path): location = path
        case .served, .s3Hub, .backend: location = text
        }
        var options: [String: JSONValue] = [:]
        for option in SyncCommand.rememberedValues {
            guard var value = arguments.option(option) else { continue }
            if option == "mapping" || option == "token-file" { value = context.absolutePath(value) }
            options[option] = .string(value)
        }
        for flag in SyncCommand.rememberedFlags where arguments.flag(flag) { options[flag] = .bool(true) }
        let peer = NamedPeers.Peer(name: name, location: location, options: options)
        // The options as 'ferry sync' will read them, checked now rather than at every sync.
        let syncArguments = try ArgumentParser.parse([".", location], spec: SyncCommand.spec).remembering(peer)
        _ = try SyncCommand.checkedOptions(syncArguments, peer: address, peerText: text)
        if case .backend(let backend) = address, try syncArguments.backendMapping(context: context) == nil {
            throw UsageError("say what to sync with \(backend): --entities Product,Note (or --mapping FILE)")
        }
        return peer
    }

    /// Refuses a URL that holds a user or a password, without repeating it.
    static func refuseCredentials(in text: String) throws {
        guard let scheme = PeerAddress.scheme(of: text) else { return }
        let authority = text.dropFirst(scheme.count + 3).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard authority.contains("@") else { return }
        let instead: String
        switch scheme {
        case "s3": instead = "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)"
        case "pocketbase+http", "pocketbase+https": instead = "POCKETBASE_EMAIL and POCKETBASE_PASSWORD (or POCKETBASE_TOKEN)"
        default: instead = "FERRY_TOKEN or --token-file"
        }
        throw UsageError("the location holds credentials (not shown here), and credentials are never written to the store: "
            + "remove them from it and give them at sync time with \(instead)")
    }

    /// The location and the remembered options, as a command line would give them.
    static func describe(_ peer: NamedPeers.Peer) -> String {
        var text = peer.location
        for (name, value) in peer.options.sorted(by: { $0.key < $1.key }) {
            text += value == .bool(true) ? " --\(name)" : " --\(name) \(value.stringValue ?? "\(value)")"
        }
        return text
    }

    static func unknown(_ name: String, among peers: NamedPeers, storePath: String) -> UsageError {
        let suggestion = NameSuggestion.closest(to: name, among: Array(peers.peers.keys)).map { "; did you mean '\($0)'?" } ?? ""
        return UsageError("\(storePath) has no peer named '\(name)'\(suggestion) (see 'ferry remote list')")
    }
}
