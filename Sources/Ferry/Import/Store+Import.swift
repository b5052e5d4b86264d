extension StoreLayout {
    /// The optional `schema.json` at the top of the store (see `docs/IMPORT.md`).
    public var schema: String { root + "/schema.json" }
}

extension Store {
    /// The store's `schema.json`, or `nil` when it has none.
    ///
    /// ```swift
    /// let schema = try store.schema()
    /// schema?.entity(named: "User")?.primaryKey // "id"
    /// ```
    /// - Throws: ``ImportError/invalidJSON(line:column:reason:)`` for a file that is not JSON,
    ///   ``ImportError/invalidSchema(path:message:)`` for one that breaks the schema's rules.
    public func schema() throws(ImportError) -> Schema? {
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(layout.schema, limit: 16 << 20) } catch {
            if error.isNotFound { return nil }
            throw .store(.io(error))
        }
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch {
            throw .invalidSchema(path: "", message: "schema.json is not JSON: line \(error.line), column \(error.column): \(error.reason)")
        }
        return try Schema(json: json)
    }

    /// Imports the JSON text of an API response into `entity`: as
    /// ``importRecords(from:into:options:)`` with the text in memory.
    ///
    /// ```swift
    /// let bytes = try FileSystem.readFile("users.json")
    /// let report = try store.importRecords(bytes, into: EntityName("User"))
    /// print(report.counts) // 40 inserted, 0 updated, 0 deleted, 0 unchanged, 0 skipped
    /// ```
    /// - Throws: ``ImportError/invalidJSON(line:column:reason:)`` for input that is not JSON (a
    ///   trailing comma, a comment, `NaN`), deeper than the store's limit, or larger than
    ///   ``ImportOptions/maximumInputBytes``; the errors of the other overloads.
    public func importRecords(
        _ bytes: [UInt8], into entity: EntityName, options: ImportOptions = ImportOptions()
    ) throws(ImportError) -> ImportReport {
        guard bytes.count <= options.maximumInputBytes else {
            throw .invalidJSON(line: 1, column: 1, reason: "document is \(bytes.count) bytes; the limit is \(options.maximumInputBytes)")
        }
        return try importRecords(from: .bytes(bytes), into: entity, options: options)
    }

    /// Imports JSON text from a file (or memory) into `entity`, reading it strictly.
    ///
    /// An array of items at the top level or at ``ImportOptions/path`` is read as a stream and
    /// written in batches, so memory stays flat whatever the array's size (see
    /// `docs/IMPORT.md`): items that link to no other records always, items that link records
    /// when no batch touches a record another batch writes (the first pass proves it). Every
    /// item is checked before anything is written; should writing fail part way (a full disk),
    /// the error says how far it got and importing the same input again finishes the work. Any
    /// other input (one item object, an import with `--parent`, linked items whose batches
    /// depend on each other) is read whole (up to ``ImportOptions/maximumInputBytes``) and
    /// imported as ``importRecords(_:into:options:)-(JSONValue,_,_)`` does, as one batch.
    ///
    /// ```swift
    /// let report = try store.importRecords(from: .file("users.json"), into: EntityName("User"))
    /// ```
    /// - Throws: ``ImportError/invalidJSON(line:column:reason:)`` with the line and column in
    ///   the whole input; ``ImportError/partiallyWritten(written:planned:_:)``; the errors of
    ///   the other overloads.
    public func importRecords(
        from input: ImportInput, into entity: EntityName, options: ImportOptions = ImportOptions()
    ) throws(ImportError) -> ImportReport {
        var options = options
        if options.schema == nil { options.schema = try self.schema() }
        let schema = options.schema
        // An entity whose mapping cannot be made is left to the whole-input path to report.
        let mapping = options.parent == nil ? try? EntityMapping(entity: entity, schema: schema, keys: options.keys) : nil
        var readWholeReason: String?
        if let mapping, !mapping.relationships.isEmpty {
            var linkedOptions = options
            linkedOptions.streamBatchItems = min(options.streamBatchItems, options.linkedStreamBatchItems)
            let importer = StreamedImport(store: self, schema: schema, entity: entity, options: linkedOptions, input: input)
            if try importer.findsArray() {
                switch try withImportLock({ () throws(ImportError) in try importer.runLinked() }) {
                case .imported(let report): return report
                case .readWhole(let reason): readWholeReason = reason
                }
            }
        }
        if let mapping, mapping.relationships.isEmpty {
            let importer = StreamedImport(store: self, schema: schema, entity: entity, options: options, input: input)
            if try importer.findsArray() {
                return try withImportLock { () throws(ImportError) in try importer.run() }
            }
        }
        // Said before the work: reading whole costs memory and time in the whole input's size.
        if let readWholeReason {
            options.readingWholeNote?("the items' links depend on each other across batches (\(readWholeReason))")
        } else if options.parent != nil {
            options.readingWholeNote?("--parent imports the children as one batch")
        }
        let bytes: [UInt8]
        let reading = ProgressCounter("reading input", total: nil, unit: .bytes, handler: options.progress)
        do { bytes = try input.readAll(limit: options.maximumInputBytes) } catch {
            guard let readWholeReason, case .invalidJSON(let line, let column, let reason) = error else { throw error }
            throw .invalidJSON(line: line, column: column, reason: "\(reason); it must be read whole because \(readWholeReason)")
        }
        reading.finish(count: bytes.count)
        let parserOptions = JSONParser.Options(maximumDepth: self.options.maximumDepth + 1, maximumByteCount: options.maximumInputBytes)
        let parsed: JSONValue
        let parsing = ProgressCounter("parsing", total: bytes.count, unit: .bytes, handler: options.progress)
        do { parsed = try JSONParser.parse(bytes, options: parserOptions) } catch {
            throw .invalidJSON(line: error.line, column: error.column, reason: error.reason)
        }
        parsing.finish()
        return try importRecords(parsed, into: entity, options: options)
    }

    /// Makes the records of `entity` match `input`, an array of items as an API returns them (or
    /// one item object, which is inserted or updated and never deletes anything).
    ///
    /// Items whose id is not stored are inserted, those whose values differ are updated, and
    /// stored records in scope that no item names are deleted. Nested objects become records of
    /// their own, linked by id. Everything is validated first and written as one journal append
    /// with one fsync: a problem anywhere writes nothing. Records whose values do not change get
    /// no journal entry.
    ///
    /// ```swift
    /// var options = ImportOptions()
    /// options.parent = RecordKey(entity: try EntityName("User"), id: try RecordID("6"))
    /// let report = try store.importRecords(notes, into: EntityName("Note"), options: options)
    /// ```
    /// - Parameters:
    ///   - input: the parsed input.
    ///   - entity: the entity the items belong to.
    ///   - options: scope, parent, allowed operations, dry run, key convention.
    /// - Returns: what was (or, for a dry run, would be) written, per entity.
    /// - Throws: ``ImportError/topLevelNotAnArray(kind:)``; ``ImportError/item(index:keyPath:_:)``
    ///   naming the item and key path of a value that cannot be converted or a document the store
    ///   would refuse; ``ImportError/duplicateItemID(_:firstIndex:secondIndex:)``;
    ///   ``ImportError/deleteDenied(record:relationship:dependents:)``; schema and store errors.
    public func importRecords(
        _ input: JSONValue, into entity: EntityName, options: ImportOptions = ImportOptions()
    ) throws(ImportError) -> ImportReport {
        var schema = options.schema
        if schema == nil { schema = try self.schema() }
        var input = input
        if let path = options.path {
            for (depth, key) in path.enumerated() {
                guard case .object(let members) = input, let next = members[key] else {
                    let reason = depth == 0 ? "the input has no member \(quoted(key))" : "\(path[..<depth].joined(separator: ".")) has no member \(quoted(key))"
                    throw .invalidPath(path.joined(separator: "."), reason: reason)
                }
                input = next
            }
        }
        let items: [JSONValue]
        let isSingleItem: Bool
        switch input {
        case .array(let elements): (items, isSingleItem) = (elements, false)
        case .object(let members):
            // An object that holds no id but an array of objects is a wrapper (`{"data": [...]}`),
            // not one item: importing it as one would skip it or, worse, read it as the whole list.
            let mapping = try EntityMapping(entity: entity, schema: schema, keys: options.keys)
            if EntityMapping.firstValue(at: mapping.primaryKeyPaths, in: members) == nil {
                let wrapped = Self.wrappedArrays(in: members)
                if let first = wrapped.first { throw .wrappedArray(paths: wrapped.map(\.path), count: first.count) }
            }
            (items, isSingleItem) = ([input], true)
        default: throw .topLevelNotAnArray(kind: input.kindName)
        }
        let converting = ProgressCounter("converting", total: items.count, unit: .items("items"), handler: options.progress)
        var conversion = try RecordConverter.convert(items, entity: entity, schema: schema, keys: options.keys)
        converting.finish()
        conversion.isSingleItem = isSingleItem
        let importer = Importer(store: self, schema: schema, options: options)
        return try withImportLock { () throws(ImportError) in try importer.run(conversion) }
    }

    /// Runs `body` while the store's write lock is held: the lock's errors as store errors,
    /// the body's as they are.
    func withImportLock<T>(_ body: () throws(ImportError) -> T) throws(ImportError) -> T {
        var outcome: Result<T, ImportError>?
        do {
            try withWriteLock { () throws(StoreError) in
                outcome = Result { () throws(ImportError) in try body() }
            }
        } catch {
            throw .store(error)
        }
        guard let outcome else { throw .store(.coding("the import did not run")) }
        return try outcome.get()
    }

    /// The members of an object (two levels deep at most) that hold a non-empty array of objects,
    /// largest first: where a wrapped list of items is.
    static func wrappedArrays(in members: [String: JSONValue], prefix: String = "") -> [(path: String, count: Int)] {
        var found: [(path: String, count: Int)] = []
        for (key, value) in members {
            let path = prefix.isEmpty ? key : prefix + "." + key
            switch value {
            case .array(let elements) where !elements.isEmpty && elements.allSatisfy({ $0.objectValue != nil }):
                found.append((path, elements.count))
            case .object(let inner) where prefix.isEmpty:
                found += wrappedArrays(in: inner, prefix: path)
            default:
                continue
            }
        }
        return found.sorted { $0.count != $1.count ? $0.count > $1.count : $0.path < $1.path }
    }
}
