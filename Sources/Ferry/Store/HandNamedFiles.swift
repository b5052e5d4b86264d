/// The files of entity folders that a person named (`Shopping List.json`, `Todo.json`), as a
/// scan found them: each is the record whose id is its name (see
/// ``RecordFileName/handMadeID(fromFileName:)``), an edit that `commit` journals after renaming
/// the file to its record's canonical name, unless it is ambiguous. Two names for one record
/// (`Todo.json` beside `^todo.json`) and names that are one file on a case-insensitive file
/// system (`Todo.json` beside `TODO.json` or `todo.json`) are problems, and none of them is
/// picked.
///
/// ```swift
/// var named = HandNamedFiles(store: store)
/// named.add(file, id: id)
/// named.settle(into: &status, now: now)
/// ```
struct HandNamedFiles {
    let store: Store
    private var found: [(file: RecordFileListing.File, key: RecordKey)] = []

    init(store: Store) { self.store = store }

    /// Adds a file named by hand, for the record `id` of its folder's entity.
    mutating func add(_ file: RecordFileListing.File, id: RecordID) {
        found.append((file, RecordKey(entity: file.entity, id: id)))
    }

    /// Adds an edit to `status` for each file, or a problem for each ambiguous one. A file for
    /// a record whose canonical file is gone takes its place: no deletion is reported for it.
    func settle(into status: inout StoreStatus, now: Int64) {
        guard !found.isEmpty else { return }
        var byFoldedName: [String: [String]] = [:]
        for (file, _) in found { byFoldedName[file.directory + "/" + file.name.lowercased(), default: []].append(file.displayPath) }
        for (file, key) in found {
            let canonical = store.layout.relativeRecordPath(key)
            let folded = file.name.lowercased()
            var others = byFoldedName[file.directory + "/" + folded, default: []].filter { $0 != file.displayPath }
            // On a case-insensitive file system the folded name is this very file.
            if folded != file.name, let twin = try? FileSystem.status(file.directory + "/" + folded), twin.inode != file.status.inode {
                others.append("records/\(file.entity.rawValue)/\(folded)")
            }
            if !others.isEmpty {
                status.problems.append(
                    .init(
                        path: file.displayPath,
                        reason: "names the same file as \(others.sorted().joined(separator: ", ")) on a case-insensitive file system "
                            + "(macOS, Windows, cloud drives): rename or remove all but one, then run ferry commit"))
                continue
            }
            if FileSystem.exists(store.layout.recordFile(key)) {
                status.problems.append(
                    .init(
                        path: file.displayPath,
                        reason: "the same record \(quoted(key.id.rawValue)) as \(canonical): remove one of the two files, "
                            + "or rename it for another id, then run ferry commit"))
                continue
            }
            let state = store.index.records[key]
            var examined = StoreStatus()
            store.examine(key, state: nil, file: file, into: &examined, now: now, confirmInPlace: false)
            status.problems += examined.problems
            for var edit in examined.edits {
                edit.canonicalPath = canonical
                if state?.isLive == true {
                    // Its canonical file is gone: this one replaces it (renamed, or edited too).
                    edit.kind = .modified
                    status.edits.removeAll { $0.key == key && $0.kind == .deleted }
                }
                status.edits.append(edit)
            }
        }
    }
}

extension Store {
    /// Renames each file named by hand among `edits` to its record's canonical name, durably,
    /// before the edits are journaled; caller holds the lock.
    /// - Throws: ``StoreError/io(_:)``; ``StoreError/unjournaledEdit(path:reason:)`` when a file
    ///   took the canonical name since the scan (neither file is touched).
    func moveHandNamedFiles(_ edits: [StoreStatus.Edit]) throws(StoreError) {
        for edit in edits {
            guard let canonicalPath = edit.canonicalPath else { continue }
            let source = path + "/" + edit.path
            let destination = path + "/" + canonicalPath
            // The store is locked, so only a person could take the name between the check and
            // the rename, and the scan just found it free.
            guard !FileSystem.exists(destination) else {
                throw .unjournaledEdit(path: source, reason: "\(canonicalPath) appeared meanwhile; run ferry commit again")
            }
            do {
                try FileSystem.rename(source, to: destination)
                try FileSystem.synchronizeDirectory(FileSystem.parentPath(of: destination))
            } catch {
                throw .io(error)
            }
        }
    }
}
