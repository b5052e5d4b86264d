import Testing
@testable import Ferry

@Suite struct FieldChangeTests {
    @Test func addedRemovedAndChangedTopLevelFields() {
        let changes = FieldChange.changes(
            from: ["name": "Lamp", "price": 12.5, "size": "S"], to: ["name": "Lamp", "price": 14, "color": "red"])
        #expect(changes.map(\.description) == [
            #"+ color: "red""#, "~ price: 12.5 → 14", #"- size: "S""#,
        ])
        #expect(changes[1].kind == .changed)
        #expect(changes[1].old == 12.5)
        #expect(changes[1].new == 14)
    }

    @Test func nestedObjectsAreDiffedByPath() {
        let old: JSONValue = ["address": ["city": "Lyon", "zip": "69001", "geo": ["lat": 45.7]], "name": "Ada"]
        let new: JSONValue = ["address": ["city": "Paris", "geo": ["lat": 48.8, "lon": 2.3]], "name": "Ada"]
        let changes = FieldChange.changes(from: old, to: new)
        #expect(changes.map(\.pathText) == ["address.city", "address.geo.lat", "address.geo.lon", "address.zip"])
        #expect(changes.map(\.kind) == [.changed, .changed, .added, .removed])
        #expect(changes[0].path == ["address", "city"])
    }

    @Test func arraysAreComparedWhole() {
        let changes = FieldChange.changes(from: ["tags": ["a", "b"]], to: ["tags": ["a", "c"]])
        #expect(changes.count == 1)
        #expect(changes[0].pathText == "tags")
        #expect(changes[0].old == ["a", "b"])
        #expect(changes[0].new == ["a", "c"])
    }

    @Test func aTypeChangeIsOneChange() {
        let changes = FieldChange.changes(from: ["address": ["city": "Lyon"]], to: ["address": "Lyon"])
        #expect(changes == [FieldChange(path: ["address"], kind: .changed, old: ["city": "Lyon"], new: "Lyon")])
    }

    @Test func creationAndDeletionListEveryField() {
        #expect(FieldChange.changes(from: nil, to: ["b": 1, "a": 2]).map(\.description) == ["+ a: 2", "+ b: 1"])
        #expect(FieldChange.changes(from: ["a": 1], to: nil).map(\.description) == ["- a: 1"])
        #expect(FieldChange.changes(from: ["a": 1], to: ["a": 1]).isEmpty)
    }

    @Test func keysThatAreNotPlainWordsAreQuoted() {
        let changes = FieldChange.changes(from: ["meta": ["content-type": 1, "a.b": 1, "x y": 1]], to: ["meta": [:]])
        #expect(changes.map(\.pathText) == [#"meta["a.b"]"#, "meta.content-type", #"meta["x y"]"#])
    }

    @Test func jsonFormCarriesPathKeysAndValues() {
        let change = FieldChange(path: ["address", "city"], kind: .changed, old: "Lyon", new: "Paris")
        #expect(change.jsonValue == [
            "path": "address.city", "keys": ["address", "city"], "kind": "changed", "old": "Lyon", "new": "Paris",
        ])
        let added = FieldChange(path: ["a"], kind: .added, old: nil, new: 1)
        #expect(added.jsonValue["old"] == nil)
    }
}
