@testable import Ferry

extension Store {
    /// A random test's edit of `key`: a delete when `deleting` and the record is live, else a
    /// put of `document`. A record in conflict takes no put or delete (issue 55), so there the
    /// edit resolves the conflict instead, as a person would.
    func edit(_ key: RecordKey, deleting: Bool, document: JSONValue) throws {
        if try state(of: key)?.isConflicted == true {
            try resolve(key, with: deleting ? Optional<JSONValue>.none : document)
        } else if deleting, try get(entity: key.entity, id: key.id) != nil {
            try delete(entity: key.entity, id: key.id)
        } else {
            try put(document, entity: key.entity, id: key.id)
        }
    }
}
