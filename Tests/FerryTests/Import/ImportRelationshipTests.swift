import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// Nested objects, links by id, unlinking, child removal, `--parent` and delete rules on real
/// stores (issue 6, item 7).
@Suite struct ImportRelationshipTests {
    @Test func theSameNestedCompanyUnderFiveUsersIsOneRecord() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        let users = (1...5).map { #"{"id": \#($0), "company": {"id": 7, "name": "Acme"}}"# }.joined(separator: ",")
        let report = try store.importText("[\(users)]", into: "User")
        #expect(report.countsByEntity[try EntityName("Company")] == .init(inserted: 1))
        #expect(try store.idTexts("Company") == ["7"])
        #expect(try store.document("Company", "7") == ["id": 7, "name": "Acme"])
        for id in 1...5 { #expect(try store.document("User", "\(id)")?["companyID"] == "7") }
    }

    @Test func nestedNotesBecomeRecordsWithABackLink() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "notes": [{"id": 12, "text": "b"}, {"id": 3, "text": "a"}]}]"#, into: "User")
        #expect(try store.document("Note", "12") == ["id": 12, "text": "b", "userID": "1"])
        #expect(try store.document("Note", "3")?["userID"] == "1")
        // Unordered and derived from the back-links: nothing is stored on the user.
        #expect(try store.document("User", "1") == ["id": 1])
    }

    @Test func orderedLinksFollowTheJSONOrder() throws {
        let directory = try TemporaryDirectory()
        let store = try makeImportStore(in: directory, schema: try SampleFiles.text("schema.json"))
        try store.importText(#"[{"id": 1, "notes": [{"id": 12, "text": "b"}, {"id": 3, "text": "a"}, {"id": 7, "text": "c"}]}]"#, into: "User")
        #expect(try store.document("User", "1")?["notesIDs"] == ["12", "3", "7"])
        try store.importText(#"[{"id": 1, "notes": [{"id": 7}, {"id": 12}, {"id": 3}]}]"#, into: "User")
        #expect(try store.document("User", "1")?["notesIDs"] == ["7", "12", "3"])
    }

    @Test func unorderedLinksAreSortedByID() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "tags": [{"id": "web"}, {"id": "api"}, {"id": "mobile"}]}]"#, into: "User")
        #expect(try store.document("User", "1")?["tagsIDs"] == ["api", "mobile", "web"])
        let head = store.head
        let again = try store.importText(#"[{"id": 1, "tags_ids": ["mobile", "web", "api"]}]"#, into: "User")
        #expect(!again.hasChanges && store.head == head)
    }

    @Test func idsLinkExistingRecordsAndMissingTargetsAreReported() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 7, "name": "Acme"}]"#, into: "Company")
        try store.importText(#"[{"id": 1, "text": "a"}, {"id": 2, "text": "b"}]"#, into: "Note")
        let report = try store.importText(#"[{"id": 1, "company_id": 7, "notes_ids": [2, 99]}, {"id": 2, "company_id": "8"}]"#, into: "User")
        #expect(try store.document("User", "1")?["companyID"] == "7")
        #expect(try store.document("Note", "2")?["userID"] == "1")
        #expect(try store.document("Note", "1")?["userID"] == nil)
        #expect(try store.document("User", "2")?["companyID"] == nil)
        #expect(report.missingTargets.map { "\($0.index) \($0.keyPath) \($0.target)" } == ["0 notes_ids Note/99", "1 company_id Company/8"])
        #expect(try store.idTexts("Company") == ["7"])
        #expect(try store.idTexts("Note") == ["1", "2"])
    }

    @Test func aToOneNullClearsTheLinkButKeepsTheTarget() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "company": {"id": 7, "name": "Acme"}}]"#, into: "User")
        try store.importText(#"[{"id": 1, "company": null}]"#, into: "User")
        #expect(try store.document("User", "1")?["companyID"] == nil)
        #expect(try store.document("Company", "7") == ["id": 7, "name": "Acme"])
    }

    @Test func anAbsentLinkKeyKeepsTheLink() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "company": {"id": 7}, "notes": [{"id": 1}], "tags": [{"id": "a"}]}]"#, into: "User")
        let report = try store.importText(#"[{"id": 1, "first_name": "Ana"}]"#, into: "User")
        #expect(report.changes.map(\.kind) == [.update])
        #expect(try store.document("User", "1") == ["id": 1, "firstName": "Ana", "companyID": "7", "tagsIDs": ["a"]])
        #expect(try store.document("Note", "1")?["userID"] == "1")
    }

    @Test func oneToManyChildrenMissingFromTheNestedArrayAreDeleted() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "notes": [{"id": 1}, {"id": 2}, {"id": 3}]}]"#, into: "User")
        let report = try store.importText(#"[{"id": 1, "notes": [{"id": 2}]}]"#, into: "User", options: ImportScenario.forced)
        #expect(report.countsByEntity[try EntityName("Note")] == .init(deleted: 2, unchanged: 1))
        #expect(try store.idTexts("Note") == ["2"])
        try store.importText(#"[{"id": 1, "notes": []}]"#, into: "User", options: ImportScenario.forced)
        #expect(try store.idTexts("Note").isEmpty)
    }

    @Test func manyToManyChildrenMissingFromTheArrayAreOnlyUnlinked() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "tags": [{"id": "a"}, {"id": "b"}]}, {"id": 2, "tags": [{"id": "b"}]}]"#, into: "User")
        #expect(try store.document("Tag", "b")?["usersIDs"] == ["1", "2"])
        let report = try store.importText(#"[{"id": 1, "tags": [{"id": "a"}]}, {"id": 2}]"#, into: "User")
        #expect(report.countsByEntity[try EntityName("Tag")]?.deleted == 0)
        #expect(try store.idTexts("Tag") == ["a", "b"])
        #expect(try store.document("User", "1")?["tagsIDs"] == ["a"])
        #expect(try store.document("Tag", "b")?["usersIDs"] == ["2"])
        #expect(try store.document("Tag", "a")?["usersIDs"] == ["1"])
    }

    @Test func emptyArraysOrNullUnlinkByIDs() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "notes": [{"id": 1}], "tags": [{"id": "a"}]}]"#, into: "User")
        try store.importText(#"[{"id": 1, "notes_ids": [], "tags_ids": null}]"#, into: "User")
        #expect(try store.idTexts("Note") == ["1"])
        #expect(try store.document("Note", "1")?["userID"] == nil)
        #expect(try store.document("User", "1")?["tagsIDs"] == [])
        #expect(try store.document("Tag", "a")?["usersIDs"] == [])
    }

    @Test func aChildMovedToAnotherParentIsNotDeleted() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "notes": [{"id": 1}, {"id": 2}]}, {"id": 2, "notes": []}]"#, into: "User")
        try store.importText(#"[{"id": 1, "notes": [{"id": 1}]}, {"id": 2, "notes": [{"id": 2}]}]"#, into: "User")
        #expect(try store.idTexts("Note") == ["1", "2"])
        #expect(try store.document("Note", "2")?["userID"] == "2")
    }

    @Test func parentImportsDiffOnlyThatParentsChildren() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 6, "notes": [{"id": 1, "text": "a"}, {"id": 2, "text": "b"}]}, {"id": 7, "notes": [{"id": 3, "text": "c"}]}]"#, into: "User")
        let report = try store.importText(#"[{"id": 2, "text": "B"}, {"id": 4, "text": "new"}]"#, into: "Note", options: try ImportScenario.under("User/6"))
        #expect(report.counts == .init(inserted: 1, updated: 1, deleted: 1))
        #expect(try store.idTexts("Note") == ["2", "3", "4"])
        #expect(try store.document("Note", "4") == ["id": 4, "text": "new", "userID": "6"])
        #expect(try store.document("Note", "3")?["userID"] == "7")
    }

    @Test func parentImportsOfManyToManyChildrenUnlink() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "tags": [{"id": "a"}, {"id": "b"}]}]"#, into: "User")
        let report = try store.importText(#"[{"id": "c", "label": "C"}]"#, into: "Tag", options: try ImportScenario.under("User/1"))
        #expect(report.counts.deleted == 0 && report.counts.inserted == 1)
        #expect(try store.document("User", "1")?["tagsIDs"] == ["c"])
        #expect(try store.document("Tag", "a")?["usersIDs"] == [])
        #expect(try store.document("Tag", "c")?["usersIDs"] == ["1"])
    }

    @Test func aParentThatDoesNotExistIsAnError() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        #expect(throws: ImportError.invalidParent("User/9", reason: "there is no record User/9")) {
            try store.importText("[]", into: "Note", options: try ImportScenario.under("User/9"))
        }
        #expect(throws: ImportError.self) { try store.importText("[]", into: "Note", options: try ImportScenario.under("Company/1")) }
    }

    @Test func deletingAUserCascadesToItsNotes() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "notes": [{"id": 1}, {"id": 2}]}, {"id": 2, "notes": [{"id": 3}]}]"#, into: "User")
        let report = try store.importText(#"[{"id": 2}]"#, into: "User", options: ImportScenario.forced)
        #expect(report.countsByEntity[try EntityName("Note")] == .init(deleted: 2))
        #expect(try store.idTexts("Note") == ["3"])
    }

    @Test func deletingANoteNullifiesNothingButDeletingAUserNullifiesTagLinks() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "tags": [{"id": "a"}]}, {"id": 2, "tags": [{"id": "a"}]}]"#, into: "User")
        try store.importText(#"[{"id": 2}]"#, into: "User")
        #expect(try store.document("Tag", "a")?["usersIDs"] == ["2"])
    }

    @Test func denyRefusesToDeleteACompanyThatStillHasUsers() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "company": {"id": 7}}, {"id": 2, "company": {"id": 8}}]"#, into: "User")
        let head = store.head
        #expect(throws: ImportError.deleteDenied(record: "Company/7", relationship: "users", dependents: ["1"])) {
            try store.importText(#"[{"id": 8}]"#, into: "Company")
        }
        #expect(store.head == head)
        // Once its user moved, the company can go; the users' links are nullified.
        try store.importText(#"[{"id": 1, "company_id": 8}]"#, into: "User", options: { var o = ImportOptions(); o.operations = .update; return o }())
        try store.importText(#"[{"id": 8}]"#, into: "Company")
        #expect(try store.idTexts("Company") == ["8"])
    }

    @Test func nestedAttributesFormIsAccepted() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(
            #"[{"id": 1, "company_attributes": {"id": 7, "name": "Acme"}, "notes_attributes": {"1": {"id": 20}, "0": {"id": 10}}, "_destroy": false}]"#,
            into: "User")
        #expect(try store.document("User", "1") == ["id": 1, "companyID": "7", "destroy": false])
        #expect(try store.idTexts("Note") == ["10", "20"])
    }

    @Test func aNestedChildWithoutIDIsSkippedAndReported() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        let report = try store.importText(#"[{"id": 1, "notes": [{"id": 1}, {"text": "orphan"}]}]"#, into: "User")
        #expect(report.skipped == [.init(index: 0, keyPath: "notes[1]", reason: "no id")])
        #expect(try store.idTexts("Note") == ["1"])
    }
}

/// Nested objects the way the seed library read them (issue 22, item 2).
@Suite struct ImportOwnedObjectTests {
    static let schema = #"""
        {
          "formatVersion": 1,
          "entities": {
            "User": {
              "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
              "relationships": {
                "location": { "kind": "to-one", "target": "Location", "inverse": "user", "deleteRule": "cascade" },
                "greenWallet": { "kind": "to-one", "target": "Wallet", "inverse": "owner" }
              }
            },
            "Location": {
              "attributes": { "id": { "type": "string" }, "city": { "type": "string" } },
              "relationships": { "user": { "kind": "to-one", "target": "User", "inverse": "location" } }
            },
            "Wallet": {
              "attributes": { "id": { "type": "integer" }, "balance": { "type": "integer" } },
              "relationships": { "owner": { "kind": "to-one", "target": "User", "inverse": "greenWallet" } }
            }
          }
        }
        """#

    @Test func aToOneObjectWithoutAnIDIsStoredUnderItsParentsID() throws {
        let directory = try TemporaryDirectory()
        let store = try makeImportStore(in: directory, schema: Self.schema)
        let report = try store.importText(#"[{"id": 11, "name": "Ana", "location": {"city": "Lyon"}}]"#, into: "User")
        #expect(report.skipped.isEmpty)
        #expect(try store.document("Location", "User-11-location") == ["id": "User-11-location", "city": "Lyon", "userID": "11"])
        #expect(try store.document("User", "11")?["locationID"] == "User-11-location")
        // The same object again updates the same record: no second location.
        try store.importText(#"[{"id": 11, "name": "Ana", "location": {"city": "Paris"}}]"#, into: "User")
        #expect(try store.ids(of: EntityName("Location")).map(\.rawValue) == ["User-11-location"])
        #expect(try store.document("Location", "User-11-location")?["city"] == "Paris")
    }

    @Test func aCapitalizedKeyReachesItsCamelCaseRelationship() throws {
        let directory = try TemporaryDirectory()
        let store = try makeImportStore(in: directory, schema: Self.schema)
        try store.importText(#"[{"id": 1, "name": "Ben", "GreenWallet": {"id": 5, "balance": 20}}]"#, into: "User")
        #expect(try store.document("Wallet", "5") == ["id": 5, "balance": 20, "ownerID": "1"])
        #expect(try store.document("User", "1")?["greenWalletID"] == "5")
        #expect(KeyConvention.camelCased("GreenWallet") == "greenWallet")
        #expect(KeyConvention.camelCased("Green_wallet") == "greenWallet")
    }
}
