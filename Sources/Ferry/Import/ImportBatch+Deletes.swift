extension ImportBatch {
    /// Deletes a record and applies the delete rule of each of its relationships: `cascade`
    /// deletes the records it links to (those the input names are only unlinked), `nullify`
    /// removes the link back to it, `deny` refuses while links remain (checked by
    /// ``checkDenyRules()`` once every delete of the batch is known).
    mutating func delete(_ key: RecordKey, origin: ImportOrigin?) throws(ImportError) {
        guard !isDeleted(key), let document = try current(key) else { return }
        markDeleted(key, origin: origin)
        guard let entity = schema?.entities[key.entity] else { return }
        for relationship in entity.relationships {
            let targets = try linkedIDs(of: key, document: document, relationship: relationship, entity: entity)
            guard !targets.isEmpty else { continue }
            let inverse = inverse(of: relationship)
            switch relationship.deleteRule {
            case .cascade:
                for target in targets {
                    let targetKey = RecordKey(entity: relationship.target, id: target)
                    if named.contains(targetKey) {
                        try unlink(targetKey, from: key, inverse: inverse, origin: origin)
                    } else {
                        try delete(targetKey, origin: origin)
                    }
                }
            case .nullify:
                for target in targets {
                    try unlink(RecordKey(entity: relationship.target, id: target), from: key, inverse: inverse, origin: origin)
                }
            case .deny:
                denyChecks.append((key, relationship, entity, targets))
            }
        }
    }

    /// Refuses the batch when a deleted record's `deny` relationship still links to records
    /// that the batch neither deletes nor unlinks.
    /// - Throws: ``ImportError/deleteDenied(record:relationship:dependents:)``.
    mutating func checkDenyRules() throws(ImportError) {
        for check in denyChecks {
            var remaining: [String] = []
            let inverse = inverse(of: check.relationship)
            for target in check.targets {
                let targetKey = RecordKey(entity: check.relationship.target, id: target)
                guard let document = try current(targetKey) else { continue }
                let stillLinked: Bool
                switch inverse?.storage {
                case .id(let member)?: stillLinked = document[member].flatMap(Self.linkID) == check.record.id
                case .ids(let member)?: stillLinked = Self.linkIDs(document[member]).contains(check.record.id)
                case .inverse?, nil: stillLinked = true
                }
                if stillLinked { remaining.append(target.rawValue) }
            }
            if !remaining.isEmpty {
                let error = ImportError.deleteDenied(
                    record: check.record.description, relationship: check.relationship.name, dependents: remaining)
                if let origin = entries[check.record]?.origin { throw origin.error(error) }
                throw error
            }
        }
    }
}
