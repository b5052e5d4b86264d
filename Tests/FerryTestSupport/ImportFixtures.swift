import Ferry
import Foundation

/// The files of the repository's `SampleData/` folder, for import tests.
///
/// ```swift
/// let users = try SampleFiles.bytes("users.json")
/// let store = try makeImportStore(in: directory, schema: SampleFiles.text("schema.json"))
/// ```
public enum SampleFiles {
    /// The absolute path of `SampleData/`.
    public static let directory: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("SampleData").path

    /// The absolute path of a sample file (`users.json`, `important-dates/holidays.json`).
    public static func path(_ name: String) -> String { directory + "/" + name }

    /// A sample file's bytes.
    public static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// A sample file's text.
    public static func text(_ name: String) throws -> String {
        String(decoding: try bytes(name), as: UTF8.self)
    }

    /// A sample file parsed with Ferry's parser.
    public static func json(_ name: String) throws -> JSONValue {
        try JSONParser.parse(try bytes(name))
    }
}

/// Makes an empty store in `directory` (at `name`), with `schema` written as its `schema.json`.
///
/// ```swift
/// let store = try makeImportStore(in: directory, schema: #"{"formatVersion": 1, "entities": {}}"#)
/// ```
public func makeImportStore(
    in directory: TemporaryDirectory, name: String = "store", schema: String? = nil, options: StoreOptions = StoreOptions()
) throws -> Store {
    let store = try Store.create(at: directory.subpath(name), options: options)
    if let schema {
        try Data(schema.utf8).write(to: URL(fileURLWithPath: store.layout.schema))
    }
    return store
}

extension Store {
    /// Imports JSON text into `entity` (tests' shorthand).
    @discardableResult
    public func importText(_ text: String, into entity: String, options: ImportOptions = ImportOptions()) throws -> ImportReport {
        try importRecords(Array(text.utf8), into: EntityName(entity), options: options)
    }

    /// The stored document of `entity`/`id`, or `nil`.
    public func document(_ entity: String, _ id: String) throws -> JSONValue? {
        try get(entity: EntityName(entity), id: RecordID(id))
    }

    /// The sorted ids of `entity`'s live records, as strings.
    public func idTexts(_ entity: String) throws -> [String] {
        try ids(of: EntityName(entity)).map(\.rawValue)
    }
}
