import Foundation

/// The kinds of change an import may make, as `--only insert,update,delete` selects them.
///
/// ```swift
/// let operations = try ImportOperations(parsing: "insert,update") // never deletes
/// ```
public struct ImportOperations: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The bits: insert 1, update 2, delete 4.
    public let rawValue: UInt8

    /// Makes a set from its bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Items whose id is not stored become new records.
    public static let insert = ImportOperations(rawValue: 1 << 0)
    /// Stored records whose item differs are updated.
    public static let update = ImportOperations(rawValue: 1 << 1)
    /// Stored records in scope that no item names are deleted.
    public static let delete = ImportOperations(rawValue: 1 << 2)
    /// Insert, update and delete.
    public static let all: ImportOperations = [.insert, .update, .delete]

    /// Parses a comma-separated list of `insert`, `update` and `delete` (spaces allowed).
    /// - Throws: ``ImportError/unknownOperation(_:)`` for any other word or an empty list.
    public init(parsing list: String) throws(ImportError) {
        var operations: ImportOperations = []
        for word in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = word.trimmingCharacters(in: .whitespaces)
            switch name {
            case "insert": operations.insert(.insert)
            case "update": operations.insert(.update)
            case "delete": operations.insert(.delete)
            default: throw .unknownOperation(name)
            }
        }
        self = operations
    }

    /// `insert,update,delete` order, comma-separated.
    public var description: String {
        [(ImportOperations.insert, "insert"), (.update, "update"), (.delete, "delete")]
            .filter { contains($0.0) }.map(\.1).joined(separator: ",")
    }
}
