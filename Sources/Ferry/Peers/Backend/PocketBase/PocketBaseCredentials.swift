/// Who Ferry signs in to a PocketBase as, read from the environment, never from the command
/// line (where other users of the machine could read it).
///
/// Sync runs as an ordinary user of an auth collection (`users` by default), whose requests the
/// collection's API rules check, compare-and-set included; setup needs a superuser.
///
/// | variable | for |
/// |---|---|
/// | `POCKETBASE_EMAIL`, `POCKETBASE_PASSWORD` | sync: an ordinary user |
/// | `POCKETBASE_TOKEN` | sync: an ordinary user's auth token, instead |
/// | `POCKETBASE_AUTH_COLLECTION` | sync: the auth collection (`users`) |
/// | `POCKETBASE_SUPERUSER_EMAIL`, `POCKETBASE_SUPERUSER_PASSWORD` | `ferry backend setup` |
public enum PocketBaseCredentials: Sendable, Equatable {
    /// Email and password of a record of an auth collection.
    case password(email: String, password: String, collection: String)
    /// An auth token, refreshed while it is valid.
    case token(String, collection: String)

    /// The collection superusers live in.
    public static let superuserCollection = "_superusers"

    /// The auth collection the credentials sign in to.
    public var collection: String {
        switch self {
        case .password(_, _, let collection), .token(_, let collection): return collection
        }
    }

    /// The ordinary user sync runs as.
    /// - Throws: ``BackendError`` of kind `.authentication` saying which variables to set.
    public static func forSync(environment: [String: String]) throws(BackendError) -> PocketBaseCredentials {
        let collection = environment["POCKETBASE_AUTH_COLLECTION"].flatMap { $0.isEmpty ? nil : $0 } ?? "users"
        if let token = environment["POCKETBASE_TOKEN"], !token.isEmpty {
            return .token(token, collection: collection)
        }
        guard let email = environment["POCKETBASE_EMAIL"], !email.isEmpty,
              let password = environment["POCKETBASE_PASSWORD"], !password.isEmpty
        else {
            throw BackendError(.authentication,
                "no PocketBase credentials: set POCKETBASE_EMAIL and POCKETBASE_PASSWORD (an ordinary user of the "
                    + "\(quoted(collection)) collection), or POCKETBASE_TOKEN")
        }
        return .password(email: email, password: password, collection: collection)
    }

    /// The superuser `ferry backend setup` runs as.
    public static func forSetup(environment: [String: String]) throws(BackendError) -> PocketBaseCredentials {
        guard let email = environment["POCKETBASE_SUPERUSER_EMAIL"], !email.isEmpty,
              let password = environment["POCKETBASE_SUPERUSER_PASSWORD"], !password.isEmpty
        else {
            throw BackendError(.authentication,
                "setting up a PocketBase needs a superuser: set POCKETBASE_SUPERUSER_EMAIL and POCKETBASE_SUPERUSER_PASSWORD")
        }
        return .password(email: email, password: password, collection: superuserCollection)
    }
}
