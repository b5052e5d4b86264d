/// The rules a setup writes (``PocketBaseAccess``): resolved against the server before anything
/// changes, written where the collection is new, superusers only or Ferry's own, and never
/// over an app's own rule, which is kept (and named when it is open).
extension PocketBaseSetup {
    /// The rules for `access`, after checking what they name: the users exist (or are the sync
    /// user to create), the role's field exists in the auth collection; and, for owned records,
    /// the owner's relation field each collection needs.
    func resolve(
        _ access: PocketBaseAccess, with client: PocketBaseClient
    ) async throws(BackendError) -> (rules: PocketBaseAccess.Rules, ownerField: [String: JSONValue]?) {
        var ids: [String] = []
        var ownerField: [String: JSONValue]?
        switch access {
        case .users(let emails):
            for email in emails {
                if let id = try await userID(of: email, in: authCollection, with: client) {
                    ids.append(id)
                } else if let user = syncUser, user.email == email, user.collection == authCollection {
                    ids.append(Self.userID(for: email))
                } else {
                    throw BackendError(.setup,
                        "\(authCollection): no user \(email) to let read and write; create it first (--create-user makes the sync user)")
                }
            }
        case .role(let field, _), .owner(let field):
            guard Self.isValidFieldName(field) else {
                throw BackendError(.setup, "\(quoted(field)): not a PocketBase field name (letters, digits and _)")
            }
            let auth = try await client.collection(named: authCollection)
            if case .role = access {
                let names = auth?["fields"]?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } ?? []
                guard names.contains(field) else {
                    throw BackendError(.setup, "\(authCollection).\(field): the auth collection has no such field to hold the role; add it first")
                }
            } else {
                guard let id = auth?["id"]?.stringValue else { throw BackendError(.setup, "\(authCollection): no such auth collection") }
                ownerField = ["name": .string(field), "type": "relation", "collectionId": .string(id), "maxSelect": 1]
            }
        case .anySignedInUser:
            break
        }
        return (access.rules(authCollection: authCollection, userIDs: ids), ownerField)
    }

    /// The id of the user with `email` in `collection`; `nil` when there is none.
    func userID(of email: String, in collection: String, with client: PocketBaseClient) async throws(BackendError) -> String? {
        let found = try await client.records(in: collection, filter: "email = \(PocketBaseBackend.literal(email))", perPage: 1, fields: "id")
        return found.items.first?["id"]?.stringValue
    }

    /// The id a setup gives the sync user it creates, known before it exists (so the rules
    /// that name it are checked and planned first): ``PocketBaseRecordID/backendID(for:)`` of
    /// `user:` and the email.
    ///
    /// ```swift
    /// PocketBaseSetup.userID(for: "phone@example.com")   // 15 characters of a-z and 0-9
    /// ```
    public static func userID(for email: String) -> String {
        PocketBaseRecordID.backendID(for: "user:" + email)
    }

    /// The rules to change on an existing collection, and a line for each rule written or kept open.
    /// - Throws: when `access` would open an app's own rule wider (``PocketBaseAccess/anySignedInUser``).
    static func planRules(
        of name: String, existing: [String: JSONValue], access: PocketBaseAccess?, rules: PocketBaseAccess.Rules?
    ) throws(BackendError) -> ([String: JSONValue], [String]) {
        var changes: [String: JSONValue] = [:]
        var written: [(name: String, rule: String)] = []
        var lines: [String] = []
        let ruleNames = ["listRule", "viewRule", "createRule", "updateRule", "deleteRule"]
        for ruleName in ruleNames {
            let current = existing[ruleName]?.stringValue
            guard let current, !PocketBaseAccess.isFerrys(current, existing: existing) else {
                // Superusers only, or Ferry's own: what the setup names (a rule Ferry marked stays
                // when the setup names no one).
                if access == nil, let current, current.hasSuffix(PocketBaseAccess.mark) { continue }
                guard let access, let wanted = rules?.byName.first(where: { $0.name == ruleName })?.rule else { throw accessNeeded(name) }
                if current != wanted {
                    changes[ruleName] = .string(wanted)
                    written.append((ruleName, wanted))
                    lines.append("\(name): \(ruleName) was \(current.map { quoted($0) } ?? "superusers only"); now \(access.summary)")
                }
                continue
            }
            // The app's own rule: kept, with the compare-and-set on updates.
            let open = PocketBaseAccess.openness(of: current)
            if access == .anySignedInUser && open == nil {
                throw BackendError(.setup,
                    "\(name).\(ruleName): the app's own rule \(quoted(current)) is kept; setup does not widen it to any signed-in user")
            }
            if let open { lines.append("warning: \(name).\(ruleName) is the app's own rule \(quoted(current)), \(open); kept") }
            if ruleName == "updateRule" && !current.contains(compareAndSet) {
                let rule: String
                if current.contains(revisionOnlyCompareAndSet) {
                    rule = current.replacingOccurrences(of: revisionOnlyCompareAndSet, with: compareAndSet)
                } else {
                    rule = current.isEmpty ? compareAndSet : "(\(current)) && \(compareAndSet)"
                }
                changes[ruleName] = .string(rule)
                lines.append("\(name): updateRule now \(rule) (other clients must send ferry_base_rev and a new ferry_rev; see docs/BACKENDS.md)")
            }
        }
        return (changes, lines + ruleLines(name, written))
    }

    /// The refusal of a setup that names no one where it must write rules.
    static func accessNeeded(_ collection: String) -> BackendError {
        BackendError(.setup,
            "\(collection): say who may read and write it: --allow-user EMAIL, --allow-role FIELD=VALUE or --owner-field FIELD "
                + "(or set POCKETBASE_EMAIL to the sync user); see docs/BACKENDS.md, Who may read and write")
    }

    /// One line per rule text written, naming the rules that hold it.
    static func ruleLines(_ collection: String, _ written: [(name: String, rule: String)]) -> [String] {
        var texts: [String] = []
        var names: [String: [String]] = [:]
        for (name, rule) in written {
            if names[rule] == nil { texts.append(rule) }
            names[rule, default: []].append(name)
        }
        return texts.map { "\(collection): \(names[$0, default: []].joined(separator: ", ")): \($0)" }
    }
}
