import Ferry
import FerryTestSupport
import FerryURLSession
import Foundation
import Testing

/// `ferry backend setup` against a real PocketBase on loopback (no mock): collections, fields
/// and the compare-and-set rule PocketBase itself enforces on an ordinary user.
@Suite(.serialized) struct PocketBaseSetupTests {
    /// A server of the test's own, its superuser, and an ordinary user.
    struct Fixture {
        let directory: TemporaryDirectory
        let server: PocketBaseServer
        let location: PocketBaseLocation
        let http = URLSessionHTTPClient()

        static func start() throws -> Fixture? {
            let directory = try TemporaryDirectory()
            guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return nil }
            return Fixture(directory: directory, server: server, location: try PocketBaseLocation(parsing: server.location))
        }

        var superuser: PocketBaseClient {
            PocketBaseClient(location: location, credentials: .password(email: server.superuserEmail, password: server.superuserPassword,
                                                                      collection: PocketBaseCredentials.superuserCollection), httpClient: http)
        }

        func user(_ email: String = "laptop@example.com", password: String = "laptop-password-1") -> PocketBaseClient {
            PocketBaseClient(location: location, credentials: .password(email: email, password: password, collection: "users"), httpClient: http)
        }

        func setUp(_ collections: [PocketBaseSetup.Collection], user: Bool = true) async throws -> [String] {
            var setup = PocketBaseSetup(collections: collections)
            if user {
                setup.syncUser = ("laptop@example.com", "laptop-password-1", "users")
            } else {
                setup.access = .anySignedInUser  // these tests are about fields and ids
            }
            return try await setup.run(with: superuser)
        }
    }

    @Test func setupMakesCollectionsWhoseUpdatesAreACompareAndSet() async throws {
        guard let fixture = try Fixture.start() else { return }
        defer { fixture.server.stop() }
        let lines = try await fixture.setUp([.init(name: "Note", fields: ["title": .text, "rank": .number, "done": .bool, "tags": .json])])
        #expect(lines.count == 4, "\(lines)")
        #expect(lines[0] == "created the sync user laptop@example.com in users")
        #expect(lines[1] == "created collection Note (9 fields: done, rank, tags, title, ferry_id, ferry_rev, ferry_deleted, created, updated; "
            + "only laptop@example.com may read and write; every update is a compare-and-set on ferry_rev and updated)")
        // The rules it wrote, printed: the sync user only, by id.
        let userID = PocketBaseSetup.userID(for: "laptop@example.com")
        let only = "@request.auth.collectionName = \"users\" && (@request.auth.id = \"\(userID)\")"
        #expect(lines[2] == "Note: listRule, viewRule, createRule, deleteRule: \(only) \(PocketBaseAccess.mark)")
        #expect(lines[3] == "Note: updateRule: \(only) && \(PocketBaseSetup.compareAndSet) \(PocketBaseAccess.mark)")
        // A second run finds everything in place.
        #expect(try await fixture.setUp([.init(name: "Note", fields: ["title": .text, "rank": .number, "done": .bool, "tags": .json])]).isEmpty)

        let user = fixture.user()
        let identity = try await user.signIn()
        #expect(!identity.isSuperuser && identity.collection == "users")
        let created = try await user.create(in: "Note", fields: [
            "id": "abc123def456ghi", "title": "one", "rank": 2, "done": false, "tags": ["a"], "ferry_rev": "r1",
        ])
        #expect(created["updated"]?.stringValue?.hasSuffix("Z") == true, "an autodate updated field: \(created)")
        // A stale base revision is refused by PocketBase itself (404), as is keeping the revision.
        await #expect(throws: BackendError.self) {
            _ = try await user.update(in: "Note", id: "abc123def456ghi", fields: ["title": "two", "ferry_rev": "r2", "ferry_base_rev": "r0"])
        }
        await #expect(throws: BackendError.self) {
            _ = try await user.update(in: "Note", id: "abc123def456ghi", fields: ["title": "two", "ferry_rev": "r1", "ferry_base_rev": "r1"])
        }
        await #expect(throws: BackendError.self) {
            _ = try await user.update(in: "Note", id: "abc123def456ghi", fields: ["title": "two"])
        }
        let updated = try await user.update(in: "Note", id: "abc123def456ghi", fields: ["title": "two", "ferry_rev": "r2", "ferry_base_rev": "r1"])
        #expect(updated["title"] == "two" && updated["ferry_rev"] == "r2")
        let text = String(repeating: "x", count: 20_000)
        _ = try await user.update(in: "Note", id: "abc123def456ghi", fields: ["title": .string(text), "ferry_rev": "r3", "ferry_base_rev": "r2"])
        #expect(try await user.records(in: "Note").items.first?["title"]?.stringValue == text, "text fields hold more than 5,000 characters")
    }

    @Test func anExistingCollectionGainsWhatIsMissingAndKeepsItsRules() async throws {
        guard let fixture = try Fixture.start() else { return }
        defer { fixture.server.stop() }
        let admin = fixture.superuser
        try await admin.createCollection([
            "name": "Product", "type": "base",
            "fields": [["name": "name", "type": "text"], ["name": "price", "type": "number"]],
            "listRule": "", "viewRule": "", "createRule": "@request.auth.id != \"\"", "updateRule": "@request.auth.verified = true",
        ])
        let lines = try await fixture.setUp([.init(name: "Product", fields: ["name": .text, "price": .number])])
        let only = "@request.auth.collectionName = \"users\" && (@request.auth.id = \"\(PocketBaseSetup.userID(for: "laptop@example.com"))\")"
        #expect(lines == [
            "created the sync user laptop@example.com in users",
            "Product: added fields ferry_id, ferry_rev, ferry_deleted, created, updated",
            "Product: added an index on updated",
            "warning: Product.listRule is the app's own rule \"\", open to anyone, signed in or not; kept",
            "warning: Product.viewRule is the app's own rule \"\", open to anyone, signed in or not; kept",
            "warning: Product.createRule is the app's own rule \"@request.auth.id != \\\"\\\"\", open to any signed-in user (anyone who can sign up); kept",
            "Product: updateRule now (@request.auth.verified = true) && \(PocketBaseSetup.compareAndSet) (other clients must send ferry_base_rev and a new ferry_rev; see docs/BACKENDS.md)",
            "Product: deleteRule was superusers only; now only laptop@example.com may read and write",
            "Product: deleteRule: \(only) \(PocketBaseAccess.mark)",
        ], "\(lines)")
        let collection = try #require(try await admin.collection(named: "Product"))
        #expect(collection["listRule"] == "" && collection["createRule"] == "@request.auth.id != \"\"")
        // A second run changes nothing, and names the open rules again.
        let again = try await fixture.setUp([.init(name: "Product", fields: ["name": .text, "price": .number])])
        #expect(again.count == 3 && again.allSatisfy { $0.hasPrefix("warning: ") }, "\(again)")
    }

    @Test func aFieldThatCannotHoldTheRecordsIsNamedAndNothingChanges() async throws {
        guard let fixture = try Fixture.start() else { return }
        defer { fixture.server.stop() }
        let admin = fixture.superuser
        try await admin.createCollection(["name": "Note", "type": "base", "fields": [["name": "rank", "type": "text"]]])
        let before = try await admin.collection(named: "Note")
        // Another collection first: nothing of it is made either, the check comes before any change.
        let refused = await backendError {
            _ = try await fixture.setUp([.init(name: "Tag", fields: ["label": .text]), .init(name: "Note", fields: ["rank": .number])], user: false)
        }
        #expect(refused == BackendError(.setup,
            "Note.rank: the collection's field is text, but Ferry's records hold number values there (a number or json field would hold them)"))
        #expect(try await admin.collection(named: "Note") == before)
        #expect(try await admin.collection(named: "Tag") == nil)
        await #expect(throws: BackendError(.setup, "Note.my-field: PocketBase field names are letters, digits and _ (not \"my-field\"); rename the member in Ferry's records, or map it to a field name in a mapping file (--mapping)")) {
            _ = try await fixture.setUp([.init(name: "Note", fields: ["my-field": .text])], user: false)
        }
    }

    /// A collection whose ids cannot be Ferry's (another pattern, another length) is refused
    /// before anything changes; PocketBase's own default fits.
    @Test func aCollectionWhoseIdsCannotBeFerrysIsRefused() async throws {
        guard let fixture = try Fixture.start() else { return }
        defer { fixture.server.stop() }
        let admin = fixture.superuser
        try await admin.createCollection(["name": "Digits", "type": "base", "fields": [
            ["name": "id", "type": "text", "primaryKey": true, "pattern": "^[0-9]+$", "min": 15, "max": 15, "autogeneratePattern": "[0-9]{15}", "required": true],
        ]])
        try await admin.createCollection(["name": "Long", "type": "base", "fields": [
            ["name": "id", "type": "text", "primaryKey": true, "pattern": "^[a-z0-9]+$", "min": 20, "max": 20, "autogeneratePattern": "[a-z0-9]{20}", "required": true],
        ]])
        try await admin.createCollection(["name": "Plain", "type": "base", "fields": [["name": "title", "type": "text"]]])
        await #expect(throws: BackendError(.setup,
            "Digits.id: the collection's ids are \"^[0-9]+$\", 15–15 characters; Ferry writes ids of 15 characters of a-z and 0-9 (docs/BACKENDS.md, Ids)")) {
            _ = try await fixture.setUp([.init(name: "Digits")], user: false)
        }
        await #expect(throws: BackendError(.setup,
            "Long.id: the collection's ids are \"^[a-z0-9]+$\", 20–20 characters; Ferry writes ids of 15 characters of a-z and 0-9 (docs/BACKENDS.md, Ids)")) {
            _ = try await fixture.setUp([.init(name: "Long")], user: false)
        }
        _ = try await fixture.setUp([.init(name: "Plain")], user: false)
    }

    @Test func credentialsAndAnUnreachableServerAreOneClearLine() async throws {
        guard let fixture = try Fixture.start() else { return }
        defer { fixture.server.stop() }
        _ = try await fixture.setUp([.init(name: "Note")])
        // A wrong password.
        let refused = await backendError { try await fixture.user(password: "wrong-password").signIn() }
        #expect(refused?.kind == .authentication)
        #expect(refused?.message.hasPrefix("sign-in to \(fixture.location) as a \"users\" record: 400") == true, "\(String(describing: refused))")
        // Setup as an ordinary user.
        await #expect(throws: BackendError(.forbidden, "setup needs a superuser, not a \"users\" record")) {
            _ = try await PocketBaseSetup(collections: [.init(name: "Note")]).run(with: fixture.user())
        }
        // A token is checked (and refreshed) by signing in with it; a superuser is told apart.
        let signedIn = fixture.user()
        try await signedIn.signIn()
        let token = try #require(signedIn.token)
        let byToken = PocketBaseClient(location: fixture.location, credentials: .token(token, collection: "users"), httpClient: fixture.http)
        #expect(try await byToken.signIn().collection == "users")
        let badToken = PocketBaseClient(location: fixture.location, credentials: .token("not-a-token", collection: "users"), httpClient: fixture.http)
        await #expect(throws: BackendError.self) { try await badToken.signIn() }
        #expect(try await fixture.superuser.signIn().isSuperuser)
        // Nothing listening: unreachable, after the retries.
        let port = fixture.server.port
        fixture.server.stop()
        let down = PocketBaseClient(location: fixture.location, credentials: .password(email: "a@b.c", password: "x", collection: "users"),
                                    httpClient: fixture.http, maximumAttempts: 2, retryDelay: 0.01)
        let unreachable = await backendError { try await down.signIn() }
        #expect(unreachable?.kind == .unreachable, "nothing listens on \(port)")
        #expect(unreachable?.message.contains("(after 2 attempts); is \(fixture.location) right and up?") == true, "\(String(describing: unreachable))")
    }

    /// The backend error `body` throws; `nil` when it throws none.
    func backendError(_ body: () async throws -> Void) async -> BackendError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? BackendError
        }
    }
}
