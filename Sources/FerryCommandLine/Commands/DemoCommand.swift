import Ferry
import Foundation

/// `ferry demo`: the whole story on SampleData, in a temporary directory.
enum DemoCommand: Command {
    static let spec = CommandSpec(
        name: "demo",
        abstract: "Run the main job on SampleData in a temporary directory, printing what it does.",
        discussion: """
            Loads SampleData into a 'laptop' store, shows a record file and a hand edit being committed, copies \
            the store to a 'phone' with a full pull, edits both offline, syncs them (the planner's choice, a \
            conflict and its resolution) and checks that both end identical; then both sync through a hub folder, \
            which is compacted, and a tablet joins from its snapshot. Every step uses the same library calls as the \
            other commands.
            """,
        options: [
            .value("dir", valueName: "path", help: "Work in this (new or empty) directory instead of a temporary one."),
            .flag("keep", help: "Keep the stores afterwards and print where they are."),
            .value("sample-data", valueName: "path", help: "Where SampleData is (default: found next to the package)."),
        ],
        examples: ["ferry demo"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let sampleData = try DemoScript.locateSampleData(arguments.option("sample-data"), context: context)
        let workDirectory: String
        var temporary = false
        if let dir = arguments.option("dir") {
            workDirectory = context.absolutePath(dir)
            try FileSystem.createDirectories(workDirectory)
        } else {
            workDirectory = try DemoScript.makeTemporaryDirectory()
            temporary = true
        }
        let script = DemoScript(sampleData: sampleData, directory: workDirectory, context: context)
        defer {
            if temporary && !arguments.flag("keep") { try? FileSystem.removeTree(workDirectory) }
        }
        try await script.run()
        if arguments.flag("keep") || !temporary { context.stdout.line("\nThe stores are in \(workDirectory)") }
        return .success
    }
}
