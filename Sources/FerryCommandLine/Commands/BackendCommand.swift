import Ferry
import Foundation

/// `ferry backend setup <location> --entities A,B`: prepares an app backend (PocketBase) for
/// Ferry: a collection per entity with the fields Ferry needs and update rules that make every
/// write a compare-and-set the backend enforces.
enum BackendCommand: Command {
    static let spec = CommandSpec(
        name: "backend",
        abstract: "Set up an app backend (PocketBase) for syncing: collections, fields, rules.",
        discussion: """
            setup creates or updates, for each entity, a PocketBase collection of the same name (or the one \
            --mapping FILE names): a field per top-level member of the records (read from --from STORE), Ferry's fields ferry_id, ferry_rev and \
            ferry_deleted, created/updated autodate fields with an index on updated, and rules under which \
            only the identities it names read and write (closed by default: the sync user, POCKETBASE_EMAIL; \
            or --allow-user, --allow-role, --owner-field) and every update is a compare-and-set on ferry_rev \
            and updated that PocketBase enforces. It prints the rules it writes, keeps a collection's own rules \
            (naming those open to anyone or to any signed-in user), changes only what is missing, and refuses \
            a collection whose fields cannot hold the records, naming the field, before changing anything. \
            See docs/BACKENDS.md.
            It signs in as a superuser: POCKETBASE_SUPERUSER_EMAIL and POCKETBASE_SUPERUSER_PASSWORD. With \
            --create-user it also creates the ordinary user sync runs as (POCKETBASE_EMAIL, POCKETBASE_PASSWORD) \
            in the auth collection (POCKETBASE_AUTH_COLLECTION, default users).
             ferry backend setup pocketbase+http://127.0.0.1:8090 --entities Product,Note --from laptop
             ferry backend setup pocketbase+https://pb.example.com --entities Note --create-user --batch
            """,
        arguments: [
            .required("action", help: "setup."),
            .required("location", help: "pocketbase+http(s)://host:port"),
        ],
        options: [
            .value("entities", valueName: "A,B", help: "The entities to sync, comma-separated (each a collection of the same name)."),
            .value("mapping", valueName: "file", help: "A JSON file naming each entity's collection and renamed fields (docs/BACKENDS.md)."),
            .value("from", valueName: "store", help: "A store whose records give the collections' fields."),
            .flag("create-user", help: "Create the sync user from POCKETBASE_EMAIL/POCKETBASE_PASSWORD if missing."),
            .value("allow-user", valueName: "email", help: "Only this user may read and write (default: POCKETBASE_EMAIL).", repeatable: true),
            .value("allow-role", valueName: "field=value", help: "Only users whose auth-collection field holds the value may read and write."),
            .value("owner-field", valueName: "field", help: "Each user reads and writes only the records whose relation field names them."),
            .flag("open-to-signed-in-users", help: "OPEN: any signed-in user may read and write (anyone who can sign up)."),
            .flag("batch", help: "Turn on PocketBase's batch API (pushes then send up to 50 writes per request)."),
            .flag("json", help: "Print one JSON object."),
        ],
        examples: ["POCKETBASE_SUPERUSER_EMAIL=… POCKETBASE_SUPERUSER_PASSWORD=… ferry backend setup pocketbase+http://127.0.0.1:8090 --from ./laptop --entities Note"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let action = try arguments.requiredPositional("action")
        guard action == "setup" else { throw UsageError("'\(action)' is not a backend action: use setup") }
        let locationText = try arguments.requiredPositional("location")
        guard case .backend(let location) = try context.peerAddress(locationText) else {
            throw UsageError("\(locationText): a PocketBase location starts with pocketbase+http:// or pocketbase+https://")
        }
        guard let mapping = try arguments.backendMapping(context: context) else {
            throw UsageError("give the entities to sync: --entities Product,Note (or --mapping FILE)")
        }
        let entities = mapping.entities
        var collections = mapping.entries.map { PocketBaseSetup.Collection(name: $0.collection) }
        if let storePath = arguments.option("from") {
            let store = try context.openStore(storePath)
            defer { store.close() }
            for (index, entry) in mapping.entries.enumerated() {
                let records = try store.records(of: entry.entity)
                collections[index].fields = try entry.fieldKinds(PocketBaseFieldKind.kinds(of: records.lazy.map(\.document)))
                collections[index].storeRecords = try PocketBaseSetup.storeRecords(of: entry, in: store)
            }
        }
        var setup = PocketBaseSetup(collections: collections)
        setup.enableBatch = arguments.flag("batch")
        if arguments.flag("create-user") {
            let credentials = try PocketBaseCredentials.forSync(environment: context.environment)
            guard case .password(let email, let password, let collection) = credentials else {
                throw UsageError("--create-user needs POCKETBASE_EMAIL and POCKETBASE_PASSWORD, not POCKETBASE_TOKEN")
            }
            setup.syncUser = (email, password, collection)
        }
        setup.access = try access(arguments, environment: context.environment)
        if let collection = context.environment["POCKETBASE_AUTH_COLLECTION"], !collection.isEmpty { setup.authCollection = collection }
        let httpClient = try context.httpClientOrHandOff(for: locationText)
        let client = PocketBaseClient(
            location: location, credentials: try PocketBaseCredentials.forSetup(environment: context.environment), httpClient: httpClient)
        let changes = try await setup.run(with: client)
        if arguments.flag("json") {
            context.printJSONLine([
                "location": .string(location.description), "entities": .array(entities.map { .string($0.rawValue) }),
                "collections": .array(mapping.entries.map { .string($0.collection) }),
                "changes": .array(changes.map { .string($0) }), "requests": .integer(Int64(client.requestCount)),
            ])
        } else if changes.isEmpty {
            context.stdout.line("nothing to change: \(location) is set up for \(mapping.entries.map(\.collection).joined(separator: ", "))")
        } else {
            for line in changes { context.stdout.line(line) }
        }
        return .success
    }

    /// Who may read and write: the one access option given, else the sync user
    /// (`POCKETBASE_EMAIL`); `nil` when neither says (the setup then asks for one).
    private static func access(_ arguments: ParsedArguments, environment: [String: String]) throws(UsageError) -> PocketBaseAccess? {
        var chosen: [PocketBaseAccess] = []
        let users = arguments.options("allow-user")
        if !users.isEmpty { chosen.append(.users(users)) }
        if let role = arguments.option("allow-role") {
            let parts = role.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw UsageError("--allow-role \(role): write it FIELD=VALUE, as --allow-role team=kitchen") }
            chosen.append(.role(field: parts[0], value: parts[1]))
        }
        if let field = arguments.option("owner-field") { chosen.append(.owner(field: field)) }
        if arguments.flag("open-to-signed-in-users") { chosen.append(.anySignedInUser) }
        guard chosen.count <= 1 else {
            throw UsageError("give one of --allow-user, --allow-role, --owner-field and --open-to-signed-in-users")
        }
        if let access = chosen.first { return access }
        if let email = environment["POCKETBASE_EMAIL"], !email.isEmpty { return .users([email]) }
        return nil
    }
}
