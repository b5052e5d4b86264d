extension Schema {
    /// Checks the rules that span attributes, relationships and entities.
    ///
    /// - A declared primary key is a `string`, `integer` or `uuid` attribute.
    /// - Names are unique within an entity: no relationship named like an attribute, and no
    ///   attribute named like a relationship's stored link (`companyID` beside `company`).
    /// - Two attributes or relationships of one entity never read the same remote key.
    /// - Targets exist; an inverse exists on the target, points back, and has a matching kind
    ///   (to-one ↔ to-many, to-one ↔ to-one, many-to-many ↔ many-to-many).
    /// - Only to-many and many-to-many relationships can be `ordered`.
    ///
    /// - Throws: ``ImportError/invalidSchema(path:message:)`` for the first broken rule, in name order.
    public func validate() throws(ImportError) {
        for (name, entity) in entities.sorted(by: { $0.key < $1.key }) {
            try validate(entity, path: "entities.\(name.rawValue)")
        }
    }

    func validate(_ entity: Entity, path: String) throws(ImportError) {
        let attributeNames = Set(entity.attributes.map(\.name))
        if let key = entity.attribute(named: entity.primaryKey), ![.string, .integer, .uuid].contains(key.type) {
            throw .invalidSchema(
                path: "\(path).attributes.\(key.name).type",
                message: "the primary key must be a string, integer or uuid, not \(key.type.rawValue)")
        }
        var remoteKeys: [String: String] = [:]
        for attribute in entity.attributes {
            let remote = entity.remoteKeyPath(of: attribute).joined(separator: ".")
            if let other = remoteKeys.updateValue(attribute.name, forKey: remote) {
                throw .invalidSchema(
                    path: "\(path).attributes.\(attribute.name)",
                    message: "reads the remote key \(quoted(remote)) that \(quoted(other)) reads too")
            }
        }
        for relationship in entity.relationships {
            let relationshipPath = "\(path).relationships.\(relationship.name)"
            if attributeNames.contains(relationship.name) {
                throw .invalidSchema(path: relationshipPath, message: "an attribute has the same name")
            }
            switch linkStorage(of: relationship, in: entity) {
            case .id(let key), .ids(let key):
                if attributeNames.contains(key) {
                    throw .invalidSchema(
                        path: relationshipPath, message: "its links are stored as \(quoted(key)), which is also an attribute")
                }
            case .inverse:
                break
            }
            let remote = entity.remoteKeyPath(of: relationship).joined(separator: ".")
            if let other = remoteKeys.updateValue(relationship.name, forKey: remote) {
                throw .invalidSchema(
                    path: relationshipPath, message: "reads the remote key \(quoted(remote)) that \(quoted(other)) reads too")
            }
            if relationship.ordered, relationship.kind == .toOne {
                throw .invalidSchema(path: relationshipPath + ".ordered", message: "only a to-many relationship can be ordered")
            }
            try validateTarget(of: relationship, in: entity, path: relationshipPath)
        }
    }

    func validateTarget(of relationship: Relationship, in entity: Entity, path: String) throws(ImportError) {
        guard let target = entities[relationship.target] else {
            throw .invalidSchema(path: path + ".target", message: "unknown entity \(quoted(relationship.target.rawValue))")
        }
        guard let inverseName = relationship.inverse else { return }
        guard let inverse = target.relationship(named: inverseName) else {
            throw .invalidSchema(
                path: path + ".inverse",
                message: "\(quoted(target.name.rawValue)) has no relationship \(quoted(inverseName))")
        }
        guard inverse.target == entity.name else {
            throw .invalidSchema(
                path: path + ".inverse",
                message: "\(target.name.rawValue).\(inverseName) links to \(inverse.target.rawValue), not \(entity.name.rawValue)")
        }
        if let back = inverse.inverse, back != relationship.name {
            throw .invalidSchema(
                path: path + ".inverse",
                message: "\(target.name.rawValue).\(inverseName) names \(quoted(back)) as its inverse, not \(quoted(relationship.name))")
        }
        let compatible: Bool
        switch (relationship.kind, inverse.kind) {
        case (.toOne, .toOne), (.toOne, .toMany), (.toMany, .toOne), (.manyToMany, .manyToMany): compatible = true
        default: compatible = false
        }
        guard compatible else {
            throw .invalidSchema(
                path: path + ".kind",
                message: "a \(relationship.kind.rawValue) relationship cannot have the \(inverse.kind.rawValue) inverse \(target.name.rawValue).\(inverseName)")
        }
    }
}
