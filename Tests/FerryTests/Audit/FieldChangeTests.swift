import Testing
import FerryTestSupport
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

    /// The side-by-side walk of both objects' sorted members gives what a plain reading of the
    /// rule gives (every key of either side, in UTF-8 order, looked up in both), on random
    /// nested objects whose keys overlap in part, some of them outside ASCII.
    @Test func theWalkAgreesWithLookingUpEveryKey() {
        var generator = RandomJSONValues.SplitMix64(seed: 19)
        let keys = ["a", "b", "c", "id", "name", "z", "é", "\u{FF5E}", "\u{1F600}", "Z", "a b", "ab"]
        func value(depth: Int) -> JSONValue {
            switch generator.next() % (depth < 2 ? 5 : 4) {
            case 0: return .integer(Int64(generator.next() % 3))
            case 1: return .string(["x", "y"][Int(generator.next() % 2)])
            case 2: return .bool(generator.next() % 2 == 0)
            case 3: return .array([.integer(Int64(generator.next() % 2))])
            default: return object(depth: depth + 1)
            }
        }
        func object(depth: Int) -> JSONValue {
            var members: [String: JSONValue] = [:]
            for key in keys where generator.next() % 2 == 0 { members[key] = value(depth: depth) }
            return .object(members)
        }
        func reference(_ old: JSONValue, _ new: JSONValue, _ path: [String]) -> [FieldChange] {
            guard case .object(let before) = old, case .object(let after) = new else {
                return old == new ? [] : [FieldChange(path: path, kind: .changed, old: old, new: new)]
            }
            var result: [FieldChange] = []
            for key in Set(before.keys).union(after.keys).sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                switch (before[key], after[key]) {
                case (nil, let added?): result.append(FieldChange(path: path + [key], kind: .added, old: nil, new: added))
                case (let removed?, nil): result.append(FieldChange(path: path + [key], kind: .removed, old: removed, new: nil))
                case (let b?, let a?): result += reference(b, a, path + [key])
                case (nil, nil): break
                }
            }
            return result
        }
        for _ in 0..<500 {
            let (old, new) = (object(depth: 0), object(depth: 0))
            #expect(FieldChange.changes(from: old, to: new) == reference(old, new, []))
            #expect(FieldChange.changes(from: nil, to: new) == reference(.object([:]), new, []))
        }
    }
}
