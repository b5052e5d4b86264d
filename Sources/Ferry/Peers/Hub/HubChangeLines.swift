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
        // The lines are found and parsed in place (a split with a closure per byte, and a copy
        // of each line, were about 4% of a 10k-record compaction).
        let decoded = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(HubError) -> [Change] in
                var start = 0
                /// The next line that is not empty, without its newline.
                func nextLine() -> UnsafeBufferPointer<UInt8>? {
                    while start < buffer.count {
                        let end = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) ?? buffer.count
                        defer { start = end + 1 }
                        if end > start { return UnsafeBufferPointer(rebasing: buffer[start..<end]) }
                    }
                    return nil
                }
                guard let headerLine = nextLine() else { throw bad("empty") }
                let header: JSONValue
                do throws(JSONParseError) { header = try JSONParser.parse(typed: headerLine, options: .init(maximumDepth: 4, maximumByteCount: 1 << 16)) } catch {
                    throw bad("header: \(error.description)")
                }
                try checkHeader(header)
                var changes: [Change] = []
                changes.reserveCapacity(count)
                while let line = nextLine() {
                    // With a change's limits: the parser's defaults refused a document as large (32 MiB)
                    // or as deep (512 levels) as a store takes, and the segment read as malformed on every
                    // replica. The object matched its hash before any line is parsed.
                    do {
                        guard let fields = try JSONParser.parse(typed: line, options: .change).objectValue else {
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
                return changes
            }
        }
        let changes = try decoded.get()
        guard changes.count == count else { throw bad("it holds \(changes.count) changes, its header says \(count)") }
        return changes
    }
}
