/// The shape shared by a segment and a snapshot part: bytes named by their SHA-256, a header
/// line, then one change per line in the journal's canonical JSON.
enum HubChangeLines {
    /// Checks the bytes against `hash`, parses the header, and hands it to `checkHeader` before
    /// decoding the `count` changes that follow.
    /// - Throws: ``HubError/incomplete(location:key:)`` when the bytes do not match `hash`;
    ///   ``HubError/malformed(location:key:reason:)`` naming the key and the line when they do
    ///   but cannot be read.
    static func decode(
        _ bytes: [UInt8], hash: SHA256Digest, count: Int, key: String, location: String,
        checkHeader: (JSONValue) throws(HubError) -> Void
    ) throws(HubError) -> [Change] {
        func bad(_ reason: String) -> HubError { .malformed(location: location, key: key, reason: reason) }
        guard SHA256.hash(bytes) == hash else { throw .incomplete(location: location, key: key) }
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).makeIterator()
        guard let headerLine = lines.next() else { throw bad("empty") }
        let header: JSONValue
        do { header = try JSONParser.parse(Array(headerLine), options: .init(maximumDepth: 4, maximumByteCount: 1 << 16)) } catch {
            throw bad("header: \(error.description)")
        }
        try checkHeader(header)
        var changes: [Change] = []
        changes.reserveCapacity(count)
        while let line = lines.next() {
            // With a change's limits: the parser's defaults refused a document as large (32 MiB)
            // or as deep (512 levels) as a store takes, and the segment read as malformed on every
            // replica. The object matched its hash before any line is parsed.
            do {
                guard let fields = try JSONParser.parse(Array(line), options: .change).objectValue else {
                    throw bad("line \(changes.count + 2) is not an object")
                }
                // Each change's digest is checked by whoever takes it.
                changes.append(try Change(jsonFields: fields))
            } catch let error as HubError {
                throw error
            } catch let error as JSONParseError {
                throw bad("line \(changes.count + 2): \(error.description)")
            } catch let error as ChangeDecodingError {
                throw bad("line \(changes.count + 2): \(error.description)")
            } catch {
                throw bad("line \(changes.count + 2): \(error)")
            }
        }
        guard changes.count == count else { throw bad("it holds \(changes.count) changes, its header says \(count)") }
        return changes
    }
}
