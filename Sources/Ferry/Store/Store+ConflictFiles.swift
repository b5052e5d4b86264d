extension Store {
    /// The suffix of a conflict file a person edited, kept when its version stopped losing.
    static let handMergeSuffix = ".hand-merge.json"

    /// Removes the conflict file of a version that no longer loses (the conflict was
    /// resolved, here or on another replica), unless a person typed into it: a file that no
    /// longer holds the version Ferry wrote there is a hand merge in progress, so it is kept,
    /// renamed `<file>.hand-merge.json` next to it (no conflict file name, so nothing removes
    /// it), and a warning names it.
    func removeConflictFile(_ key: RecordKey, loser: RecordVersion, documents: [UInt64: JSONValue]) throws {
        let path = layout.conflictFile(key, version: loser.identity)
        guard FileSystem.exists(path) else { return }
        if !loser.isDelete, let bytes = try? FileSystem.readFile(path, limit: options.maximumDocumentBytes * 4),
            SHA256.hash(bytes) != SHA256.hash(try document(of: loser, documents: documents).prettyBytes())
        {
            let kept = String(path.dropLast(RecordFileName.fileExtension.count)) + Self.handMergeSuffix
            try FileSystem.rename(path, to: kept)
            options.warningHandler(
                "warning: the conflict of \(key) was resolved, and \(relativePath(of: path)) had been edited: kept as "
                    + "\(relativePath(of: kept)); 'ferry put' or 'ferry resolve' it if it holds a merge to keep")
            return
        }
        try FileSystem.removeFile(path)
    }
}
