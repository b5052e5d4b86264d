import Ferry
import Foundation

/// What every command needs to reach stores and print data, in one place.
extension CommandContext {
    /// Resolves a path given on the command line against the working directory.
    func absolutePath(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : currentDirectory + "/" + path
        // `./x`, `x/.` and `a//b` name the same folder as `x` and `a/b`, and messages and a
        // hub's cache key should say it one way ('..' is kept: through a link it means another place).
        let parts = full.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return "/" + parts.joined(separator: "/")
    }

    /// Store options for this process: warnings go to stderr as one line each; the lock
    /// timeout may be set with `FERRY_LOCK_TIMEOUT` (seconds).
    func storeOptions() -> StoreOptions {
        var options = StoreOptions()
        let stderr = self.stderr
        options.warningHandler = { message in stderr.line(message) }
        if let text = environment["FERRY_LOCK_TIMEOUT"], let seconds = Double(text), seconds >= 0 {
            options.lockTimeout = seconds
        }
        return options
    }

    /// Opens the store at `path` (as given on the command line). A URL or a hub, read by the
    /// one rule of ``PeerAddress``, is named as what it is, with what to do instead, never taken
    /// for a folder that lacks a store.
    func openStore(_ path: String) throws -> Store {
        let address: PeerAddress
        do { address = try PeerAddress.parse(path, resolvingFolder: absolutePath) } catch {
            throw CLIError(ErrorReporter.message(for: error))
        }
        let instead = "this command reads a store folder"
        switch address {
        case .store(let folder):
            return try Store.open(at: folder, options: storeOptions())
        case .hubFolder, .s3Hub:
            throw CLIError(
                "\(path) is a hub, not a store: \(instead); 'ferry verify \(path)' checks the hub, and a store synced with it "
                    + "('ferry sync <store> \(path)') holds its records")
        case .served:
            throw CLIError(
                "\(path) is a store served over HTTP, not a store folder: \(instead); sync a local copy with it "
                    + "('ferry init copy', 'ferry sync copy \(path)') and use that, or run the command where it is served")
        case .backend:
            throw CLIError(
                "\(path) is an app backend, not a store: \(instead); sync a store with it "
                    + "('ferry sync <store> \(path) --entities …') and use that store")
        }
    }

    /// Throws when `entity` is one `store` has never seen (no records, live or deleted) and its
    /// schema does not declare: most likely a typo, which must not read as an empty entity.
    func requireKnownEntity(_ entity: EntityName, in store: Store) throws {
        var known = Set(try store.entities().map(\.entity.rawValue))
        if known.contains(entity.rawValue) || FileSystem.isDirectory(store.layout.records + "/" + entity.rawValue) { return }
        let schema = try? store.schema()
        if schema?.entity(named: entity.rawValue) != nil { return }
        for name in schema?.entities.keys.map(\.rawValue) ?? [] { known.insert(name) }
        for directory in (try? FileSystem.contents(ofDirectory: store.layout.records)) ?? [] where directory.kind == .directory {
            known.insert(directory.name)
        }
        let suggestion = NameSuggestion.closest(to: entity.rawValue, among: Array(known)).map { "; did you mean \($0)?" } ?? ""
        let listing = known.isEmpty ? "it has no records yet" : "it has \(known.sorted().joined(separator: ", "))"
        throw CLIError("\(store.path) has no entity \(entity.rawValue)\(suggestion) (\(listing))")
    }

    /// Prints a JSON value on one line (canonical form) to stdout.
    func printJSONLine(_ value: JSONValue) {
        var bytes = value.canonicalBytes()
        bytes.append(UInt8(ascii: "\n"))
        stdout.write(bytes: bytes)
    }

    /// Prints a JSON value in the pretty form (2-space indent, newline at end) to stdout.
    func printJSON(_ value: JSONValue) {
        stdout.write(bytes: value.prettyBytes())
    }

    /// The peer a command-line argument names, read by the one rule of ``PeerAddress``; a
    /// malformed one (an unknown scheme, a bad bucket name) is a usage error.
    func peerAddress(_ text: String, token: String? = nil) throws -> PeerAddress {
        do { return try PeerAddress.parse(text, token: token, resolvingFolder: absolutePath) } catch {
            throw UsageError(ErrorReporter.message(for: error))
        }
    }

    /// The HTTP client for a peer that needs one (`http(s)://`, `s3://`). `ferry` has none: it
    /// hands the whole command line to `ferry-remote`, and does not return.
    func httpClientOrHandOff(for peerText: String) throws -> any HTTPClient {
        if let httpClient { return httpClient }
        guard let handOff = handOffRemoteSync else { throw CLIError("\(peerText): this program has no HTTP client") }
        try handOff()
    }
}

extension ParsedArguments {
    /// The positional `name` as an entity name; a bad one is a usage error naming the rule.
    func entity(_ name: String = "entity") throws -> EntityName {
        let text = try requiredPositional(name)
        do { return try EntityName(text) } catch { throw UsageError(error.description) }
    }

    /// The positional `name` as a record id.
    func recordID(_ name: String = "id") throws -> RecordID {
        let text = try requiredPositional(name)
        do { return try RecordID(text) } catch { throw UsageError(error.description) }
    }

    /// The option `name` as a comma-separated list of entity names (`--entities Product,Note`),
    /// when given.
    func entityList(_ name: String) throws -> [EntityName]? {
        guard let text = option(name) else { return nil }
        var entities: [EntityName] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            do { entities.append(try EntityName(String(part).trimmingCharacters(in: .whitespaces))) } catch {
                throw UsageError("--\(name): \(error)")
            }
        }
        return entities
    }

    /// What to sync with an app backend: the mapping file of `--mapping` (narrowed to
    /// `--entities` when both are given), or `--entities` alone, each entity with the collection
    /// of the same name; `nil` when neither is given.
    func backendMapping(context: CommandContext) throws -> BackendMapping? {
        let entities = try entityList("entities")
        guard let path = option("mapping") else { return entities.map(BackendMapping.init(entities:)) }
        let mapping = try BackendMapping.load(from: context.absolutePath(path))
        guard let entities else { return mapping }
        return try mapping.restricted(to: entities)
    }

    /// The option `name` as an entity name, when given.
    func entityOption(_ name: String) throws -> EntityName? {
        guard let text = option(name) else { return nil }
        do { return try EntityName(text) } catch { throw UsageError("--\(name): \(error.description)") }
    }

}
