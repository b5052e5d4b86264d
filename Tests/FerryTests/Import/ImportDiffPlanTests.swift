import Testing
@testable import Ferry

@Suite struct ImportDiffPlanTests {
    static func user(_ id: Int64, _ name: String, email: String? = nil) -> JSONValue {
        var user: JSONValue = ["id": .integer(id), "firstName": .string(name)]
        user["email"] = .string(email ?? name.lowercased() + "@example.com")
        return user
    }

    static func stored(_ items: [JSONValue]) -> [(id: String, document: JSONValue)] {
        items.map { (id: String($0["id"]?.integerValue ?? -1), document: $0) }
    }

    static let eight: [JSONValue] = (1...8).map { user(Int64($0), "User\($0)") }

    @Test func reimportingIdenticalDataChangesNothing() throws {
        let plan = try ImportDiffPlan(stored: Self.stored(Self.eight), incoming: Self.eight, operations: .all)
        #expect(!plan.hasChanges)
        #expect(plan.unchanged.map(\.rawValue) == (1...8).map(String.init))
        #expect(plan.inserts.isEmpty && plan.updates.isEmpty && plan.deletes.isEmpty && plan.skipped.isEmpty)
    }

    @Test func eightStoredThenSixOverlapping() throws {
        // Stored 1…8; incoming 3…8 where 4 and 7 changed, plus new 9 and 10.
        var incoming = (3...8).map { Self.user(Int64($0), "User\($0)") }
        incoming[1] = Self.user(4, "Renamed")
        incoming[4] = Self.user(7, "User7", email: "seven@mail.example.com")
        incoming += [Self.user(9, "Nine"), Self.user(10, "Ten")]
        let plan = try ImportDiffPlan(stored: Self.stored(Self.eight), incoming: incoming, operations: .all)
        #expect(plan.inserts.map(\.id.rawValue) == ["9", "10"])
        #expect(plan.inserts.map(\.index) == [6, 7])
        #expect(plan.updates.map(\.id.rawValue) == ["4", "7"])
        #expect(plan.updates.map(\.changedKeys) == [["email", "firstName"], ["email"]])
        #expect(plan.updates[0].document == Self.user(4, "Renamed"))
        #expect(plan.deletes.map(\.rawValue) == ["1", "2"])
        #expect(plan.unchanged.map(\.rawValue) == ["3", "5", "6", "8"])
    }

    @Test func itemWithoutIDIsSkippedAndNeverMispaired() throws {
        let incoming: [JSONValue] = [Self.user(1, "Ana"), ["firstName": "Nobody"], ["id": nil, "firstName": "Null"], Self.user(2, "Ben")]
        let plan = try ImportDiffPlan(stored: Self.stored([Self.user(1, "Ana")]), incoming: incoming, operations: .all)
        #expect(plan.skipped == [.init(index: 1, reason: .missingID), .init(index: 2, reason: .nullID)])
        #expect(plan.unchanged.map(\.rawValue) == ["1"])
        #expect(plan.inserts.map(\.id.rawValue) == ["2"])
        #expect(plan.inserts.map(\.index) == [3])
        #expect(plan.inserts[0].document == Self.user(2, "Ben"))
    }

    @Test func absentKeysKeepStoredValuesAndNullRemoves() throws {
        let stored: JSONValue = ["id": 1, "firstName": "Ana", "nickname": "Annie", "age": 34]
        let item: JSONValue = ["id": 1, "nickname": nil, "age": 35]
        let plan = try ImportDiffPlan(stored: [(id: "1", document: stored)], incoming: [item], operations: .all)
        #expect(plan.updates.first?.document == ["id": 1, "firstName": "Ana", "age": 35])
        #expect(plan.updates.first?.changedKeys == ["age", "nickname"])
    }

    @Test func nullForAnAbsentKeyIsNoChange() throws {
        let stored: JSONValue = ["id": 1, "firstName": "Ana"]
        let plan = try ImportDiffPlan(stored: [(id: "1", document: stored)], incoming: [["id": 1, "nickname": nil]], operations: .all)
        #expect(plan.unchanged.map(\.rawValue) == ["1"])
    }

    @Test func storedNullCountsAsAbsent() throws {
        let stored: JSONValue = ["id": 1, "nickname": nil, "age": 3]
        let same = try ImportDiffPlan(stored: [(id: "1", document: stored)], incoming: [["id": 1, "nickname": nil]], operations: .all)
        #expect(same.unchanged.map(\.rawValue) == ["1"])
        let older = try ImportDiffPlan(stored: [(id: "1", document: stored)], incoming: [["id": 1, "nickname": nil, "age": 4]], operations: .all)
        #expect(older.updates.first?.changedKeys == ["age"])
        #expect(older.updates.first?.document == ["id": 1, "age": 4])
    }

    @Test func insertsLeaveNullsOut() throws {
        let plan = try ImportDiffPlan(stored: [], incoming: [["id": "a", "company": nil, "name": "x"]], operations: .all)
        #expect(plan.inserts.first?.document == ["id": "a", "name": "x"])
    }

    @Test func idsMatchAcrossStringsAndIntegers() throws {
        let plan = try ImportDiffPlan(
            stored: [(id: "123", document: ["id": "123", "name": "a"]), (id: "12", document: ["id": 12])],
            incoming: [["id": 123, "name": "a"], ["id": 12.0], ["id": "12.0"]], operations: .all)
        #expect(plan.updates.map(\.id.rawValue) == ["123"])
        #expect(plan.updates.first?.changedKeys == ["id"])
        #expect(plan.unchanged.map(\.rawValue) == ["12"])
        #expect(plan.inserts.map(\.id.rawValue) == ["12.0"])
    }

    @Test func duplicateIDsNameBothIndexes() {
        #expect(throws: ImportError.duplicateItemID("5", firstIndex: 1, secondIndex: 3)) {
            try ImportDiffPlan(stored: [], incoming: [["id": 4], ["id": 5], ["id": 6], ["id": "5"]], operations: .all)
        }
        let error = ImportError.duplicateItemID("5", firstIndex: 1, secondIndex: 3)
        #expect(error.description == #"items [1] and [3] have the same id "5""#)
    }

    @Test func invalidItemsAndIDsAreErrors() {
        #expect(throws: ImportError.itemNotAnObject(index: 1, kind: "array")) {
            try ImportDiffPlan(stored: [], incoming: [["id": 1], [1]], operations: .all)
        }
        #expect(throws: ImportError.self) { try ImportDiffPlan(stored: [], incoming: [["id": 1.5]], operations: .all) }
        #expect(throws: ImportError.self) { try ImportDiffPlan(stored: [], incoming: [["id": ""]], operations: .all) }
        #expect(throws: ImportError.self) { try ImportDiffPlan(stored: [], incoming: [["id": true]], operations: .all) }
        #expect(throws: ImportError.self) {
            try ImportDiffPlan(stored: [(id: "1", document: [:]), (id: "1", document: [:])], incoming: [], operations: .all)
        }
        #expect(throws: ImportError.self) { try ImportDiffPlan(stored: [(id: "1", document: [1])], incoming: [], operations: .all) }
    }

    @Test func onlyHonoursTheAllowedOperations() throws {
        let incoming = [Self.user(2, "Changed"), Self.user(9, "New")]
        let stored = Self.stored([Self.user(1, "One"), Self.user(2, "Two")])
        let insertOnly = try ImportDiffPlan(stored: stored, incoming: incoming, operations: .insert)
        #expect(insertOnly.inserts.map(\.id.rawValue) == ["9"])
        #expect(insertOnly.updates.isEmpty && insertOnly.deletes.isEmpty)
        #expect(insertOnly.withheld == .init(inserts: [], updates: [try RecordID("2")], deletes: [try RecordID("1")]))
        let noDelete = try ImportDiffPlan(stored: stored, incoming: incoming, operations: try ImportOperations(parsing: "insert, update"))
        #expect(noDelete.updates.map(\.id.rawValue) == ["2"] && noDelete.deletes.isEmpty)
        #expect(noDelete.withheld.deletes.map(\.rawValue) == ["1"])
        let deleteOnly = try ImportDiffPlan(stored: stored, incoming: incoming, operations: .delete)
        #expect(deleteOnly.deletes.map(\.rawValue) == ["1"] && deleteOnly.inserts.isEmpty && deleteOnly.updates.isEmpty)
        #expect(deleteOnly.withheld.inserts.map(\.rawValue) == ["9"] && deleteOnly.withheld.updates.map(\.rawValue) == ["2"])
    }

    @Test func operationsParseFromTheCommandLine() throws {
        #expect(try ImportOperations(parsing: "insert,update,delete") == .all)
        #expect(try ImportOperations(parsing: "delete").description == "delete")
        #expect(throws: ImportError.unknownOperation("upsert")) { try ImportOperations(parsing: "insert,upsert") }
        #expect(throws: ImportError.unknownOperation("")) { try ImportOperations(parsing: "") }
    }

    @Test func customPrimaryKey() throws {
        let plan = try ImportDiffPlan(
            stored: [(id: "ab", document: ["uuid": "ab", "v": 1])], incoming: [["uuid": "ab", "v": 2], ["id": 3]],
            primaryKey: "uuid", operations: .all)
        #expect(plan.updates.map(\.id.rawValue) == ["ab"])
        #expect(plan.skipped == [.init(index: 1, reason: .missingID)])
    }
}
