import Foundation

/// What `ferry backend setup` does to a PocketBase, as a superuser: for each entity, a
/// collection of the same name with the fields Ferry needs, and API rules that make every
/// update a compare-and-set PocketBase itself enforces. It changes only what is missing or
/// different, says what it changed, and refuses (changing nothing of that collection) a
/// collection whose fields cannot hold Ferry's records, naming the field.
///
/// Each collection gets:
/// - a field per top-level member of the entity's records (``PocketBaseFieldKind``), when a
///   store is given to read them from;
/// - `ferry_id` (text: the Ferry record id), `ferry_rev` (text: the revision every write must
///   change), `ferry_deleted` (bool: Ferry's soft delete);
/// - `created` and `updated` autodate fields (collections made through the API have none), and
///   an index on `updated`, which incremental pulls read by;
/// - rules that let only the identities ``access`` names list, view, create, update and delete
///   (``PocketBaseAccess``: closed by default to the sync user), and make every update a
///   compare-and-set PocketBase enforces: `ferry_base_rev` equal to the stored `ferry_rev`, a new
///   `ferry_rev`, and, when sent (Ferry always does), `ferry_base_updated` equal to `updated`
///   (``compareAndSet``). A stale write is refused with 404. A collection's own rules (the
///   app's) are kept, with the compare-and-set added to its update rule; those open to anyone
///   or to any signed-in user are named, and a setup asked to open them wider refuses.
public struct PocketBaseSetup: Sendable {
    /// The fields Ferry keeps its bookkeeping in.
    public static let idField = "ferry_id", revisionField = "ferry_rev", deletedField = "ferry_deleted"
    /// The body member an update carries: the revision it was made from.
    public static let baseRevisionMember = "ferry_base_rev"
    /// The body member Ferry's updates carry besides: the record's `updated` when Ferry last saw
    /// it, which every write moves (a superuser's, a hook's), whatever it does to `ferry_rev`.
    public static let baseUpdatedMember = "ferry_base_updated"
    /// The compare-and-set every update rule holds: the base revision, a new revision, and,
    /// when the writer sends it (Ferry always does), the base `updated`.
    public static let compareAndSet = "ferry_rev = @request.body.ferry_base_rev && @request.body.ferry_rev != ferry_rev"
        + " && (@request.body.ferry_base_updated:isset = false || @request.body.ferry_base_updated = updated)"
    /// The compare-and-set of setups before Ferry compared `updated` (replaced by ``compareAndSet``).
    package static let revisionOnlyCompareAndSet = "ferry_rev = @request.body.ferry_base_rev && @request.body.ferry_rev != ferry_rev"
    /// Field names PocketBase keeps for itself.
    static let reservedNames: Set<String> = ["id", "created", "updated", "collectionId", "collectionName", "expand"]

    /// One collection to set up.
    public struct Collection: Sendable {
        /// The collection's name.
        public var name: String
        /// The fields for the records' members, by name.
        public var fields: [String: PocketBaseFieldKind]
        /// The store's records the fields were read from: a field added to an existing
        /// collection is filled from them (see ``PocketBaseSetup/storeRecords(of:in:)``).
        public var storeRecords: [StoreRecord] = []

        public init(name: String, fields: [String: PocketBaseFieldKind] = [:]) {
            self.name = name
            self.fields = fields
        }
    }

    public var collections: [Collection]
    /// Turn PocketBase's batch API on (off by default in PocketBase).
    public var enableBatch = false
    /// Create this ordinary user (email, password) in `users` if it is not there.
    public var syncUser: (email: String, password: String, collection: String)?
    /// Who may read and write the collections; `nil`: only the sync user (``syncUser``).
    public var access: PocketBaseAccess?
    /// The auth collection the users of ``access`` are in.
    public var authCollection = "users"

    public init(collections: [Collection]) {
        self.collections = collections
    }

    /// Checks every collection first, then makes the changes.
    /// - Returns: one line per change; empty when everything was already in place.
    /// - Throws: ``BackendError`` of kind `.setup` naming the collection and field that does not fit,
    ///   before anything is changed.
    public func run(with client: PocketBaseClient) async throws(BackendError) -> [String] {
        let identity = try await client.signIn()
        guard identity.isSuperuser else {
            throw BackendError(.forbidden, "setup needs a superuser, not a \(quoted(identity.collection)) record")
        }
        let access = access ?? syncUser.map { .users([$0.email]) }
        var rules: PocketBaseAccess.Rules?
        var ownerField: [String: JSONValue]?
        if let access { (rules, ownerField) = try await resolve(access, with: client) }
        var plans: [(collection: Collection, existing: [String: JSONValue]?, changes: [String: JSONValue], lines: [String])] = []
        for collection in collections {
            let existing = try await client.collection(named: collection.name)
            let (changes, lines) = try Self.plan(collection, existing: existing, access: access, rules: rules, ownerField: ownerField)
            plans.append((collection, existing, changes, lines))
        }
        var done: [String] = []
        if let user = syncUser, try await userID(of: user.email, in: user.collection, with: client) == nil {
            _ = try await client.create(in: user.collection, fields: [
                "id": .string(Self.userID(for: user.email)), "email": .string(user.email), "password": .string(user.password),
                "passwordConfirm": .string(user.password), "verified": true,
            ])
            done.append("created the sync user \(user.email) in \(user.collection)")
        }
        for plan in plans where !plan.lines.isEmpty {
            guard let existing = plan.existing else {
                try await client.createCollection(plan.changes)
                done += plan.lines
                continue
            }
            try await client.updateCollection(plan.collection.name, plan.changes)
            done += plan.lines
            let had = Set(existing["fields"]?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } ?? [])
            let added = plan.collection.fields.keys.filter { !had.contains($0) }
            if !added.isEmpty, let line = try await fill(plan.collection, added: added, with: client) { done.append(line) }
        }
        if enableBatch {
            let settings = try await client.settings()
            if settings["batch"]?.objectValue?["enabled"]?.boolValue != true {
                var batch = settings["batch"]?.objectValue ?? [:]
                batch["enabled"] = true
                if (batch["maxRequests"]?.integerValue ?? 0) < 50 { batch["maxRequests"] = 50 }
                try await client.updateSettings(["batch": .object(batch)])
                done.append("turned on the batch API (at most \(batch["maxRequests"]?.integerValue ?? 50) requests per batch)")
            }
        }
        return done
    }

    // MARK: Planning

    /// What to send for `collection` (a whole description to create it, or the members to
    /// change), and a line per change.
    static func plan(
        _ collection: Collection, existing: [String: JSONValue]?, access: PocketBaseAccess?, rules: PocketBaseAccess.Rules?,
        ownerField: [String: JSONValue]? = nil
    ) throws(BackendError) -> ([String: JSONValue], [String]) {
        let name = collection.name
        for field in collection.fields.keys.sorted() {
            guard isValidFieldName(field) else {
                throw BackendError(.setup,
                    "\(name).\(field): PocketBase field names are letters, digits and _ (not \(quoted(field))); rename the member in Ferry's records, or map it to a field name in a mapping file (--mapping)")
            }
            guard !reservedNames.contains(field), !field.hasPrefix("ferry_") else {
                throw BackendError(.setup, "\(name).\(field): PocketBase or Ferry keeps this field name for itself; rename the member in Ferry's records, or map it to another field name in a mapping file (--mapping)")
            }
        }
        var wanted: [(name: String, field: [String: JSONValue])] = collection.fields.keys.sorted().map { ($0, fieldDescription($0, kind: collection.fields[$0] ?? .json)) }
        wanted += [
            (idField, textField(idField)),
            (revisionField, textField(revisionField)),
            (deletedField, ["name": .string(deletedField), "type": "bool"]),
            ("created", ["name": "created", "type": "autodate", "onCreate": true, "onUpdate": false]),
            ("updated", ["name": "updated", "type": "autodate", "onCreate": true, "onUpdate": true]),
        ]
        if let ownerField, let fieldName = ownerField["name"]?.stringValue { wanted.append((fieldName, ownerField)) }
        let index = "CREATE INDEX `idx_ferry_\(name)_updated` ON `\(name)` (`updated`)"

        guard let existing else {
            guard let access, let rules else { throw accessNeeded(name) }
            var description: [String: JSONValue] = [
                "name": .string(name), "type": "base", "fields": .array(wanted.map { .object($0.field) }),
                "indexes": [.string(index)],
            ]
            for (ruleName, rule) in rules.byName { description[ruleName] = .string(rule) }
            let line = "created collection \(name) (\(wanted.count) fields: \(wanted.map(\.name).joined(separator: ", ")); "
                + "\(access.summary); every update is a compare-and-set on ferry_rev and updated)"
            return (description, [line] + ruleLines(name, rules.byName))
        }

        guard existing["type"]?.stringValue == "base" else {
            throw BackendError(.setup, "\(name): a \(existing["type"]?.stringValue ?? "?") collection; Ferry syncs records of base collections")
        }
        var fields = existing["fields"]?.arrayValue?.compactMap(\.objectValue) ?? []
        if let id = fields.first(where: { $0["name"]?.stringValue == "id" }) { try checkIDs(id, of: name) }
        var lines: [String] = []
        var changes: [String: JSONValue] = [:]
        var added: [String] = []
        for (fieldName, description) in wanted {
            guard let present = fields.first(where: { $0["name"]?.stringValue == fieldName }) else {
                fields.append(description)
                added.append(fieldName)
                continue
            }
            let type = present["type"]?.stringValue ?? "?"
            let wantedType = description["type"]?.stringValue ?? "?"
            if let kind = collection.fields[fieldName] {
                guard kind.fits(type: type) else {
                    throw BackendError(.setup,
                        "\(name).\(fieldName): the collection's field is \(type), but Ferry's records hold \(kind == .json ? "values of several kinds" : "\(kind.rawValue) values") there (a \(kind.rawValue) or json field would hold them)")
                }
            } else if type != wantedType {
                throw BackendError(.setup, "\(name).\(fieldName): the collection's field is \(type); Ferry needs \(wantedType) here")
            } else if type == "autodate" && fieldName == "updated" && present["onUpdate"]?.boolValue != true {
                throw BackendError(.setup, "\(name).updated: an autodate field that is not set on update; Ferry reads changes by it")
            }
        }
        if !added.isEmpty {
            changes["fields"] = .array(fields.map { .object($0) })
            lines.append("\(name): added field\(added.count == 1 ? "" : "s") \(added.joined(separator: ", "))")
        }
        var indexes = existing["indexes"]?.arrayValue ?? []
        if !indexes.contains(where: { ($0.stringValue ?? "").contains("idx_ferry_\(name)_updated") }) {
            indexes.append(.string(index))
            changes["indexes"] = .array(indexes)
            lines.append("\(name): added an index on updated")
        }
        let (ruleChanges, ruleLines) = try planRules(of: name, existing: existing, access: access, rules: rules)
        changes.merge(ruleChanges) { $1 }
        lines += ruleLines
        return (changes, lines)
    }

    /// Refuses a collection whose ids cannot be the ones Ferry writes (PocketBaseRecordID: 15
    /// characters of a-z and 0-9), as a collection may say (a pattern, a length).
    static func checkIDs(_ field: [String: JSONValue], of collection: String) throws(BackendError) {
        let minimum = field["min"]?.integerValue ?? 0
        let maximum = field["max"]?.integerValue ?? 0
        let pattern = field["pattern"]?.stringValue ?? ""
        var fits = minimum <= 15 && (maximum == 0 || maximum >= 15)
        if fits && !pattern.isEmpty {
            guard let expression = try? NSRegularExpression(pattern: pattern) else {
                throw BackendError(.setup, "\(collection).id: the collection's id pattern \(quoted(pattern)) cannot be read")
            }
            // Both shapes Ferry writes: an id passed through, and a hashed one.
            fits = ["abc123def456ghi", PocketBaseRecordID.backendID(for: "note-1")].allSatisfy { sample in
                expression.firstMatch(in: sample, range: NSRange(location: 0, length: sample.utf16.count)) != nil
            }
        }
        guard fits else {
            throw BackendError(.setup,
                "\(collection).id: the collection's ids are \(pattern.isEmpty ? "" : "\(quoted(pattern)), ")\(minimum)–\(maximum == 0 ? "any" : String(maximum)) characters; "
                    + "Ferry writes ids of 15 characters of a-z and 0-9 (docs/BACKENDS.md, Ids)")
        }
    }

    static func isValidFieldName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 100 && name.utf8.allSatisfy {
            (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "_")
        }
    }

    static func textField(_ name: String) -> [String: JSONValue] {
        ["name": .string(name), "type": "text", "max": 1_000_000]
    }

    static func fieldDescription(_ name: String, kind: PocketBaseFieldKind) -> [String: JSONValue] {
        switch kind {
        case .text: return textField(name)
        case .number: return ["name": .string(name), "type": "number"]
        case .bool: return ["name": .string(name), "type": "bool"]
        case .json: return ["name": .string(name), "type": "json", "maxSize": .integer(32 << 20)]
        }
    }
}
