import Ferry
@testable import FerryTestSupport
import FerryURLSession
import Foundation
import Testing

/// Who may read and write what `ferry backend setup` prepares (issue 48, item 2), against a
/// real PocketBase whose `users` collection lets anyone sign up, as PocketBase's does by default.
@Suite(.serialized) struct PocketBaseAccessTests {
    typealias Fixture = PocketBaseSyncTests.Fixture
    static let note = PocketBaseSyncTests.note

    /// Signs a stranger up through the public API (no credentials), as anyone on the web can,
    /// and returns a client signed in as them.
    static func signUpStranger(_ fixture: Fixture, email: String = "stranger@example.com", fields: [String: JSONValue] = [:]) throws -> PocketBaseClient {
        var body: [String: JSONValue] = ["email": .string(email), "password": "stranger-password-1", "passwordConfirm": "stranger-password-1"]
        body.merge(fields) { $1 }
        let answer = try SeaweedFS.curl([
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Content-Type: application/json",
            "--data-binary", String(decoding: JSONValue.object(body).canonicalBytes(), as: UTF8.self),
            fixture.server.baseURL + "/api/collections/users/records",
        ])
        #expect(answer.output == "200", "anyone may sign up: \(answer)")
        return fixture.client(email: email, password: "stranger-password-1")
    }

    @Test func aStrangerWhoSignsUpSeesNothingAndChangesNothing() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "private", "rank": 1], entity: Self.note, id: RecordID("n1"))
        try laptop.put(["title": "also private", "rank": 2], entity: Self.note, id: RecordID("n2"))
        _ = try await fixture.sync(laptop)

        let stranger = try Self.signUpStranger(fixture)
        #expect(try await stranger.signIn().collection == "users")
        #expect(try await stranger.records(in: "Note").items.isEmpty, "a stranger lists nothing")
        let id = PocketBaseRecordID.backendID(for: "n1")
        let deleting = await Self.backendError { try await stranger.delete(in: "Note", id: id) }
        #expect(deleting?.kind == .notFound, "\(String(describing: deleting))")
        let updating = await Self.backendError { _ = try await stranger.update(in: "Note", id: id, fields: ["title": "mine now"]) }
        #expect(updating?.kind == .notFound, "\(String(describing: updating))")
        let creating = await Self.backendError { _ = try await stranger.create(in: "Note", fields: ["title": "spam"]) }
        #expect(creating != nil, "a stranger creates nothing")

        let after = try await fixture.sync(laptop)
        #expect(after.deletedOnBackend == 0 && after.pulled == 0 && after.pushed == 0, "\(after)")
        #expect(try PocketBaseSyncTests.documents(laptop).count == 2)
        #expect(try await fixture.serverRecords().count == 2)
    }

    /// A team: only users whose `team` field holds the value read and write.
    @Test func aRoleLetsInItsMembersOnly() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let admin = fixture.client(superuser: true)
        var users = try #require(try await admin.collection(named: "users"))
        var fields = users["fields"]?.arrayValue ?? []
        fields.append(["name": "team", "type": "text"])
        users = ["fields": .array(fields)]
        _ = try await admin.updateCollection("users", users)
        var setup = PocketBaseSetup(collections: [.init(name: "Task", fields: ["title": .text])])
        setup.access = .role(field: "team", value: "kitchen")
        let lines = try await setup.run(with: admin)
        #expect(lines.first?.contains("only users whose team is \"kitchen\" may read and write") == true, "\(lines)")
        #expect(lines.contains("Task: listRule, viewRule, createRule, deleteRule: @request.auth.collectionName = \"users\" && @request.auth.team = \"kitchen\" \(PocketBaseAccess.mark)"), "\(lines)")

        let cook = try Self.signUpStranger(fixture, email: "cook@example.com", fields: ["team": "kitchen"])
        let other = try Self.signUpStranger(fixture, email: "other@example.com", fields: ["team": "garden"])
        _ = try await cook.create(in: "Task", fields: ["title": "chop onions"])
        #expect(try await cook.records(in: "Task").items.count == 1)
        #expect(try await other.records(in: "Task").items.isEmpty)
        #expect(await Self.backendError { _ = try await other.create(in: "Task", fields: ["title": "weed"]) } != nil)

        // A role field the auth collection lacks is refused before anything changes.
        var wrong = PocketBaseSetup(collections: [.init(name: "Other")])
        wrong.access = .role(field: "squad", value: "a")
        await #expect(throws: BackendError(.setup, "users.squad: the auth collection has no such field to hold the role; add it first")) {
            _ = try await wrong.run(with: admin)
        }
        #expect(try await admin.collection(named: "Other") == nil)
    }

    /// An app whose users each own records: each reads and writes its own; a record Ferry
    /// creates is owned by the sync user, and the owner is not part of the documents.
    @Test func eachUserOwnsTheRecordsItCreates() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let admin = fixture.client(superuser: true)
        var setup = PocketBaseSetup(collections: [.init(name: "Diary", fields: ["title": .text])])
        setup.access = .owner(field: "owner")
        let lines = try await setup.run(with: admin)
        #expect(lines.first?.contains("each user reads and writes only the records whose owner is them") == true, "\(lines)")
        #expect(lines.contains("Diary: createRule: @request.auth.collectionName = \"users\" && @request.body.owner = @request.auth.id \(PocketBaseAccess.mark)"), "\(lines)")

        let diary = try EntityName("Diary")
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "mine"], entity: diary, id: RecordID("d1"))
        func sync() async throws -> SyncReport {
            var options = BackendPeer.Options(entities: [diary])
            options.ownerField = "owner"
            let peer = BackendPeer(backend: PocketBaseBackend(client: fixture.client(), ownerField: "owner"), options: options)
            return try await SyncEngine(store: laptop, transport: peer).run()
        }
        let first = try await sync()
        #expect(first.pushed == 1, "\(first)")
        let laptopID = try await fixture.client().signIn().id
        let stored = try #require(try await admin.records(in: "Diary").items.first)
        #expect(stored["owner"] == .string(laptopID) && stored["title"] == "mine", "\(stored)")

        // Another user sees none of it, and its own records stay its own.
        #expect(try await fixture.web.records(in: "Diary").items.isEmpty)
        let webID = try await fixture.web.signIn().id
        _ = try await fixture.web.create(in: "Diary", fields: ["title": "the web's", "owner": .string(webID)])
        let handOver = await Self.backendError {
            _ = try await fixture.web.create(in: "Diary", fields: ["title": "planted", "owner": .string(laptopID)])
        }
        #expect(handOver != nil, "no one creates records in another user's name")
        try laptop.put(["title": "mine, edited"], entity: diary, id: RecordID("d1"))
        let second = try await sync()
        #expect(second.pulled == 0 && second.pushed == 1 && second.conflicts.isEmpty, "\(second)")
        #expect(try laptop.records(of: diary).map(\.document) == [["title": "mine, edited"]], "the owner is not part of the document")
        let idle = try await sync()
        #expect(idle.pulled == 0 && idle.pushed == 0, "\(idle)")
    }

    /// A collection a setup before closed access opened to any signed-in user is closed by the
    /// next setup, which prints the rules it wrote; an app's own rules are kept, the open ones
    /// named, and a setup asked to open them wider refuses.
    @Test func oldOpenRulesAreClosedAndAnAppsOwnRulesAreKeptNotWidened() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let admin = fixture.client(superuser: true)
        // As an earlier setup left it: any signed-in user, and the revision-only compare-and-set.
        let signedIn = "@request.auth.id != \"\""
        _ = try await admin.updateCollection("Note", [
            "listRule": .string(signedIn), "viewRule": .string(signedIn), "createRule": .string(signedIn), "deleteRule": .string(signedIn),
            "updateRule": .string("\(signedIn) && ferry_rev = @request.body.ferry_base_rev && @request.body.ferry_rev != ferry_rev"),
        ])
        let stranger = try Self.signUpStranger(fixture)
        _ = try await fixture.web.create(in: "Note", fields: ["title": "hello"])
        #expect(try await stranger.records(in: "Note").items.count == 1, "open before")
        var setup = PocketBaseSetup(collections: [.init(name: "Note")])
        setup.access = .users(["laptop@example.com"])
        let lines = try await setup.run(with: admin)
        #expect(lines.contains("Note: listRule was \"@request.auth.id != \\\"\\\"\"; now only laptop@example.com may read and write"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("Note: updateRule: @request.auth.collectionName = \"users\" && (@request.auth.id = \"") && $0.hasSuffix(" && \(PocketBaseSetup.compareAndSet) \(PocketBaseAccess.mark)") }, "\(lines)")
        #expect(try await stranger.records(in: "Note").items.isEmpty, "closed after")
        #expect(try await fixture.client().records(in: "Note").items.count == 1)

        // An app's own collection: its rules stay; the open ones are named; none is widened.
        _ = try await admin.createCollection([
            "name": "Product", "type": "base", "fields": [["name": "name", "type": "text"]],
            "listRule": "", "viewRule": .string(signedIn), "createRule": "@request.auth.verified = true",
            "updateRule": "@request.auth.verified = true", "deleteRule": "@request.auth.verified = true",
        ])
        var widen = PocketBaseSetup(collections: [.init(name: "Product", fields: ["name": .text])])
        widen.access = .anySignedInUser
        await #expect(throws: BackendError(.setup,
            "Product.createRule: the app's own rule \"@request.auth.verified = true\" is kept; setup does not widen it to any signed-in user")) {
            _ = try await widen.run(with: admin)
        }
        var keep = PocketBaseSetup(collections: [.init(name: "Product", fields: ["name": .text])])
        keep.access = .users(["laptop@example.com"])
        let kept = try await keep.run(with: admin)
        #expect(kept.contains("warning: Product.listRule is the app's own rule \"\", open to anyone, signed in or not; kept"), "\(kept)")
        #expect(kept.contains("warning: Product.viewRule is the app's own rule \"@request.auth.id != \\\"\\\"\", open to any signed-in user (anyone who can sign up); kept"), "\(kept)")
        let product = try #require(try await admin.collection(named: "Product"))
        #expect(product["listRule"] == "" && product["createRule"] == "@request.auth.verified = true")
        #expect(product["updateRule"] == .string("(@request.auth.verified = true) && \(PocketBaseSetup.compareAndSet)"))
    }

    /// The backend error `body` throws; `nil` when it throws none.
    static func backendError(_ body: () async throws -> Void) async -> BackendError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? BackendError
        }
    }
}
