extension RecordFileName {
    /// The id of a file a person named, such as `Shopping List.json` or `Todo.json`: its name
    /// without `.json`, taken literally. `nil` for a canonical name (``id(fromRelativePath:)``
    /// reads those), and for a name that does not decode unambiguously: one holding `^` or `%`
    /// (the canonical encoding's escapes), a control character, or a `/`, one starting with `.`,
    /// and one whose id would need the folders of a long id.
    ///
    /// Ferry writes every record under its canonical name, so that two ids that differ only in
    /// case never share a file on a case-insensitive file system: `ferry commit` renames such a
    /// file to the canonical name of its id (`Shopping List.json` → `^shopping%20^list.json`)
    /// and says so.
    ///
    /// ```swift
    /// RecordFileName.handMadeID(fromFileName: "Shopping List.json")  // "Shopping List"
    /// RecordFileName.handMadeID(fromFileName: "^todo.json")          // nil: canonical
    /// ```
    public static func handMadeID(fromFileName name: String) -> RecordID? {
        guard name.hasSuffix(fileExtension), id(fromRelativePath: name) == nil else { return nil }
        let stem = String(name.dropLast(fileExtension.count))
        guard !stem.isEmpty, !stem.hasPrefix(".") else { return nil }
        for byte in stem.utf8 {
            switch byte {
            case UInt8(ascii: "^"), UInt8(ascii: "%"), UInt8(ascii: "/"), 0..<0x20, 0x7F: return nil
            default: continue
            }
        }
        guard let id = try? RecordID(stem), encode(id).utf8.count <= pieceLength else { return nil }
        return id
    }

    /// What to do with a file under an entity folder whose name is neither canonical nor one a
    /// person may give (see ``handMadeID(fromFileName:)``); every way it offers works.
    static func advice(forOddName relativeName: String) -> String {
        let name = relativeName.split(separator: "/").last.map(String.init) ?? relativeName
        let ignore = "or list it in \(IgnoreRules.fileName)"
        guard !relativeName.contains("/"), name.hasSuffix(fileExtension), name.utf8.count > fileExtension.utf8.count,
            let id = try? RecordID(String(name.dropLast(fileExtension.utf8.count)))
        else {
            return "not a record file (records/<Entity>/<id>.json): move it out of records/, \(ignore)"
        }
        let canonical = relativePath(for: id)
        guard !canonical.contains("/") else {
            return "not a record file name (its id would be too long for one file name): move it out of records/, \(ignore)"
        }
        return "not a record file name Ferry can read (it holds ^ or %, a control character, or starts with '.'): "
            + "rename it to \(canonical) for the id \(quoted(id.rawValue)), move it out of records/, \(ignore)"
    }
}
