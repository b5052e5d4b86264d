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
        var exported: [JSONValue] = []
        try exportRecords(of: entity, options: options) { exported.append($0) }
        return .array(exported)
    }

    /// The records of `entity` as ``exportRecords(of:options:)`` gives them, one at a time and
    /// sorted by id, with one record's document in memory at a time (and those it links to,
    /// when relationships are exported, whose keys are kept so that each is written in full
    /// once): a million records export in flat memory.
    ///
    /// ```swift
    /// var writer = PrettyJSONArrayWriter()
    /// try store.exportRecords(of: EntityName("User")) { output.write(writer.bytes(appending: $0)) }
    /// output.write(writer.closingBytes())
    /// ```
    /// - Parameter progress: Called as the entity's records are read (every 1,024 and after
    ///   the last), the total being its live records.
    public func exportRecords(
        of entity: EntityName, options: ExportOptions = ExportOptions(), progress: WorkProgressHandler? = nil,
        _ body: (JSONValue) throws(ImportError) -> Void
    ) throws(ImportError) {
        var exporter = try makeExporter(options, exporting: entity)
        let now = options.now ?? Int64(clamping: self.options.clock.milliseconds())
        var failure: ImportError?
        var total: Int?
        if progress != nil {
            do { total = try entities().first { $0.entity == entity }?.count ?? 0 } catch { throw .store(error) }
        }
        var read = 0
        func report() { progress?(WorkProgress(task: "records", done: read, total: total, unit: .items("records"))) }
        defer { if read % 1024 != 0 { report() } }
        do throws(StoreError) {
            try forEachRecord(of: entity) { id, value throws(StoreError) -> Bool in
                read += 1
                if read % 1024 == 0 { report() }
                let document = value.objectValue ?? [:]
                if let scope = options.scope, !scope.matches(.object(document), now: now) { return true }
                do throws(ImportError) {
                    try body(try exporter.export(RecordKey(entity: entity, id: id), document: document))
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        } catch {
            throw .store(error)
        }
        if let failure { throw failure }
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
        var exporter = try makeExporter(options, exporting: entity)
        let key = RecordKey(entity: entity, id: id)
        guard let document = try exporter.document(of: key) else { throw .store(.recordNotFound(key)) }
        let now = options.now ?? Int64(clamping: self.options.clock.milliseconds())
        if let scope = options.scope, !scope.matches(.object(document), now: now) { throw .store(.recordNotFound(key)) }
        return try exporter.export(key, document: document)
    }

    private func makeExporter(_ options: ExportOptions, exporting entity: EntityName) throws(ImportError) -> Exporter {
        var schema = options.schema
        if schema == nil { schema = try self.schema() }
        return Exporter(store: self, schema: schema, options: options, exporting: entity)
    }
}
