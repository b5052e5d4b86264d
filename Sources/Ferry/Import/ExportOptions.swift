/// How ``Store/exportRecords(of:options:)`` writes records back into the JSON an API expects.
///
/// ```swift
/// var options = ExportOptions()
/// options.relationships = .nested        // Rails accepts_nested_attributes_for form
/// let json = try store.exportRecords(of: EntityName("User"), options: options)
/// ```
public struct ExportOptions: Sendable {
    /// How keys are written.
    public enum Keys: String, Sendable, CaseIterable {
        /// The remote form: snake_case for camelCase entities (`first_name`), declared remote
        /// keys and dotted key paths rebuilt as nested objects, reserved names without their
        /// prefix (`userType` → `type`), the primary key as `id`.
        case snake
        /// The remote form in camelCase (`firstName`, `websiteURL`, `type`), primary key as `id`.
        case camel
        /// The storage keys exactly as stored (`userType`, `companyID`), no key paths.
        case asis
    }

    /// How relationships are written.
    public enum Relationships: String, Sendable, CaseIterable {
        /// Links as ids: `company_id: "6"`, `notes_ids: ["1", "2"]`.
        case none
        /// Linked records inline: a to-one as an object (`company: {...}`), a to-many as an array.
        case array
        /// Rails `accepts_nested_attributes_for`: `company_attributes: {...}`,
        /// `notes_attributes: {"0": {...}, "1": {...}}`; a `destroy` field is written `_destroy`.
        case nested
    }

    /// The key style; snake_case by default.
    public var keys: Keys = .snake
    /// The relationship style; ids only by default.
    public var relationships: Relationships = .none
    /// Which records to export (`--scope`); all when `nil`.
    public var scope: ImportFilter?
    /// The schema to use; the store's `schema.json` when `nil`.
    public var schema: Schema?
    /// The current time in milliseconds since 1970 for relative times in ``scope``; the store's
    /// clock when `nil`.
    public var now: Int64?

    /// Makes the default options: snake_case keys, links as ids, every record.
    public init() {}
}
