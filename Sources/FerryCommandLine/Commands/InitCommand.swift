import Ferry
import Foundation

/// `ferry init <dir> [--name NAME]`: makes a new, empty store.
enum InitCommand: Command {
    static let spec = CommandSpec(
        name: "init",
        abstract: "Create a new, empty store in a directory.",
        discussion: """
            Makes <dir> (which must not exist or must be empty) with a manifest holding a new replica id, \
            the records/ folder, the journal and the engine state.
             ferry init ./laptop --name laptop
            """,
        arguments: [.required("dir", help: "The directory to create the store in.")],
        options: [
            .value("name", valueName: "name", help: "A short name for this replica, shown by log, conflicts, show and diff on every replica (default: this host's name)."),
            .flag("json", help: "Print the new store's details as JSON."),
        ],
        examples: ["ferry init ./laptop --name laptop"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.requiredPositional("dir")
        // Without --name, the host's name (its first label, sanitized): a replica is never nameless
        // unless the host has none.
        let name = arguments.option("name") ?? ReplicaNames.defaultName(forHost: ProcessInfo.processInfo.hostName)
        if let name, name.isEmpty || name.count > 64 || name.contains(where: { $0.isNewline || $0 == "\t" }) {
            throw UsageError("--name must be 1 to 64 characters on one line")
        }
        let store = try Store.create(at: context.absolutePath(path), name: name, options: context.storeOptions())
        defer { store.close() }
        if arguments.flag("json") {
            context.printJSONLine(["path": .string(store.path), "replica": .string(store.replicaID.rawValue), "name": name.map { .string($0) } ?? .null])
        } else {
            context.stdout.line("Initialized an empty Ferry store in \(path) (replica \(store.replicaID.short)\(name.map { ", \($0)" } ?? ""))")
        }
        return .success
    }
}
