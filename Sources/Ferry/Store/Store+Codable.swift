extension Store {
    /// Stores a `Codable` value. The entity defaults to the type's name; the id to the value's
    /// `id` property when it encodes one (a string, an integer or a UUID), else a new UUID.
    ///
    /// ```swift
    /// struct Product: Codable { var id: Int; var name: String; var price: Double }
    /// try store.put(Product(id: 7, name: "Lamp", price: 12.5))
    /// let lamp = try store.get(Product.self, id: "7")
    /// ```
    @discardableResult
    public func put<T: Encodable>(_ value: T, entity: String? = nil, id: String? = nil) throws(StoreError) -> RecordID {
        let document: JSONValue
        do { document = try JSONValue(encoding: value) } catch { throw .coding("cannot encode \(T.self): \(error)") }
        let entityName = try Store.entityName(entity ?? String(describing: T.self))
        var recordID: RecordID?
        if let id {
            recordID = try Store.recordID(id)
        } else if let embedded = document["id"] {
            switch embedded {
            case .string(let text): recordID = try Store.recordID(text)
            case .integer(let number): recordID = try Store.recordID(String(number))
            default: break
            }
        }
        return try put(document, entity: entityName, id: recordID)
    }

    /// Reads a record as a `Decodable` type; `nil` when there is no such record.
    public func get<T: Decodable>(_ type: T.Type, entity: String? = nil, id: String) throws(StoreError) -> T? {
        let entityName = try Store.entityName(entity ?? String(describing: T.self))
        guard let document = try get(entity: entityName, id: try Store.recordID(id)) else { return nil }
        do { return try document.decode(T.self) } catch { throw .coding("cannot decode \(T.self) from \(entityName)/\(id): \(error)") }
    }

    /// All live records of an entity decoded as `T`, sorted by id.
    public func all<T: Decodable>(_ type: T.Type, entity: String? = nil) throws(StoreError) -> [T] {
        let entityName = try Store.entityName(entity ?? String(describing: T.self))
        var result: [T] = []
        for (id, document) in try records(of: entityName) {
            do { result.append(try document.decode(T.self)) } catch {
                throw .coding("cannot decode \(T.self) from \(entityName)/\(id): \(error)")
            }
        }
        return result
    }

    static func entityName(_ text: String) throws(StoreError) -> EntityName {
        do { return try EntityName(text) } catch { throw .invalid(error) }
    }

    static func recordID(_ text: String) throws(StoreError) -> RecordID {
        do { return try RecordID(text) } catch { throw .invalid(error) }
    }
}
