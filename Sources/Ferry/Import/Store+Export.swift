extension Store {
    /// The records of `entity` as the JSON array an API expects, sorted by id.
    ///
    /// ```swift
    /// var options = ExportOptions()
    /// options.relationships = .array
    /// let users = try store.exportRecords(of: EntityName("User"), options: options)
    /// // [{"id": 1, "first_name": "Ana", "company": {"id": 6, …}, "notes": [{…}, {…}], …}, …]
    /// ```
    /// - Parameters:
    ///   - entity: the entity to export.
    ///   - options: key style, relationship style and scope.
    /// - Returns: an array of objects.
    /// - Throws: ``ImportError/invalidSchema(path:message:)`` for a broken `schema.json`;
    ///   ``ImportError/store(_:)`` when the store cannot be read.
    public func exportRecords(of entity: EntityName, options: ExportOptions = ExportOptions()) throws(ImportError) -> JSONValue {
        var exporter = try makeExporter(options)
        let now = options.now ?? Int64(clamping: self.options.clock.milliseconds())
        var exported: [JSONValue] = []
        for record in try exporter.records(of: entity) {
            if let scope = options.scope, !scope.matches(.object(record.document), now: now) { continue }
            exported.append(try exporter.export(RecordKey(entity: entity, id: record.id), document: record.document))
        }
        return .array(exported)
    }

    /// One record as the JSON object an API expects (`ferry export <store> User 7`).
    ///
    /// ```swift
    /// let user = try store.exportRecord(RecordID("7"), of: EntityName("User"))
    /// ```
    /// - Throws: ``ImportError/store(_:)`` with ``StoreError/recordNotFound(_:)`` when there is no
    ///   such record (or it is outside ``ExportOptions/scope``); the errors of
    ///   ``exportRecords(of:options:)``.
    public func exportRecord(_ id: RecordID, of entity: EntityName, options: ExportOptions = ExportOptions()) throws(ImportError) -> JSONValue {
        var exporter = try makeExporter(options)
        let key = RecordKey(entity: entity, id: id)
        guard let document = try exporter.document(of: key) else { throw .store(.recordNotFound(key)) }
        let now = options.now ?? Int64(clamping: self.options.clock.milliseconds())
        if let scope = options.scope, !scope.matches(.object(document), now: now) { throw .store(.recordNotFound(key)) }
        return try exporter.export(key, document: document)
    }

    private func makeExporter(_ options: ExportOptions) throws(ImportError) -> Exporter {
        var schema = options.schema
        if schema == nil { schema = try self.schema() }
        return Exporter(store: self, schema: schema, options: options)
    }
}
