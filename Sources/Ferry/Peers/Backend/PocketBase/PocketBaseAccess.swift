import Foundation

/// Who may read and write the collections `ferry backend setup` prepares: closed by default to
/// the identities it names, since PocketBase's `users` collection lets anyone sign up.
///
/// ```swift
/// var setup = PocketBaseSetup(collections: [.init(name: "Note")])
/// setup.access = .users(["phone@example.com"])   // one user's data
/// setup.access = .role(field: "team", value: "kitchen")   // a team
/// setup.access = .owner(field: "owner")   // an app whose users each own records
/// ```
///
/// Each becomes the list, view, create and delete rules of the collections, and the update
/// rule with the compare-and-set after it (``PocketBaseSetup/compareAndSet``). The rules Ferry
/// writes end with ``PocketBaseAccess/mark``, so a later setup knows them from an app's own.
public enum PocketBaseAccess: Sendable, Equatable {
    /// Only these users of the auth collection, by email (their ids go in the rules).
    case users([String])
    /// Only users of the auth collection whose `field` holds `value`.
    case role(field: String, value: String)
    /// Each user of the auth collection reads and writes the records whose relation `field`
    /// names them, and creates records only in their own name.
    case owner(field: String)
    /// Any signed-in user of any auth collection: open to whoever can sign up.
    case anySignedInUser

    /// The comment that ends every rule Ferry writes.
    public static let mark = "// ferry backend setup"

    /// The rule a setup before closed access wrote (any signed-in user), without a mark.
    static let signedIn = "@request.auth.id != \"\""

    /// The five rules of a collection.
    public struct Rules: Sendable, Equatable {
        public var list: String
        public var view: String
        public var create: String
        public var update: String
        public var delete: String

        /// By PocketBase's names (`listRule` …), in the order a setup prints them.
        public var byName: [(name: String, rule: String)] {
            [("listRule", list), ("viewRule", view), ("createRule", create), ("updateRule", update), ("deleteRule", delete)]
        }
    }

    /// The rules for this access, with the compare-and-set in the update rule.
    /// - Parameters:
    ///   - authCollection: the auth collection the users are in (`users`).
    ///   - userIDs: for ``users(_:)``, the users' ids, in the order of their emails.
    public func rules(authCollection: String, userIDs: [String]) -> Rules {
        let inCollection = "@request.auth.collectionName = \(Self.literal(authCollection))"
        let cas = PocketBaseSetup.compareAndSet
        let read: String
        switch self {
        case .users:
            let anyOf = userIDs.map { "@request.auth.id = \(Self.literal($0))" }.joined(separator: " || ")
            read = "\(inCollection) && (\(anyOf.isEmpty ? "false" : anyOf))"
        case .role(let field, let value):
            read = "\(inCollection) && @request.auth.\(field) = \(Self.literal(value))"
        case .anySignedInUser:
            read = Self.signedIn
        case .owner(let field):
            let owned = "\(inCollection) && \(field) = @request.auth.id"
            let keepsOwner = "(@request.body.\(field):isset = false || @request.body.\(field) = @request.auth.id)"
            return Rules(
                list: "\(owned) \(Self.mark)", view: "\(owned) \(Self.mark)",
                create: "\(inCollection) && @request.body.\(field) = @request.auth.id \(Self.mark)",
                update: "\(owned) && \(keepsOwner) && \(cas) \(Self.mark)", delete: "\(owned) \(Self.mark)")
        }
        return Rules(
            list: "\(read) \(Self.mark)", view: "\(read) \(Self.mark)", create: "\(read) \(Self.mark)",
            update: "\(read) && \(cas) \(Self.mark)", delete: "\(read) \(Self.mark)")
    }

    /// Who may read and write, in words (`only phone@example.com`).
    public var summary: String {
        switch self {
        case .users(let emails): return "only \(emails.joined(separator: ", ")) may read and write"
        case .role(let field, let value): return "only users whose \(field) is \(quoted(value)) may read and write"
        case .owner(let field): return "each user reads and writes only the records whose \(field) is them"
        case .anySignedInUser: return "OPEN: any signed-in user may read and write, and anyone who can sign up is one"
        }
    }

    /// Whether `rule` is one a Ferry setup wrote (marked), or every rule of the collection is
    /// what setups before closed access wrote on a collection they created (`existing`: any
    /// signed-in user, and the revision-only compare-and-set), rather than the app's own.
    static func isFerrys(_ rule: String, existing: [String: JSONValue]) -> Bool {
        if rule.hasSuffix(mark) { return true }
        return ["listRule", "viewRule", "createRule", "deleteRule"].allSatisfy { existing[$0]?.stringValue == signedIn }
            && existing["updateRule"]?.stringValue == "\(signedIn) && \(PocketBaseSetup.revisionOnlyCompareAndSet)"
    }

    /// How open an app's own rule is, when plainly so: to anyone, or to any signed-in user;
    /// `nil` for superusers only or a rule that says more.
    static func openness(of rule: String?) -> String? {
        guard var rule else { return nil }
        for cas in [PocketBaseSetup.compareAndSet, PocketBaseSetup.revisionOnlyCompareAndSet] {
            rule = rule.replacingOccurrences(of: " && \(cas)", with: "")
            if rule == cas { rule = "" }
        }
        rule = rule.trimmingCharacters(in: .whitespaces)
        if rule.isEmpty { return "open to anyone, signed in or not" }
        let compact = rule.filter { $0 != " " && $0 != "(" && $0 != ")" }
        if ["@request.auth.id!=\"\"", "@request.auth.id!=''"].contains(compact) { return "open to any signed-in user (anyone who can sign up)" }
        return nil
    }

    /// A string literal for a rule.
    static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
