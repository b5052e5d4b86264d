import Ferry

/// Writes lines to standard output unbuffered, each group with one `write(2)`, so a process
/// killed at any moment has printed only whole groups (at most one torn last line).
enum OutputLines {
    /// Writes `lines`, each followed by a newline, in one system call.
    static func emit(_ lines: [String]) throws(SystemError) {
        var bytes: [UInt8] = []
        for line in lines {
            bytes.append(contentsOf: line.utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        try FileDescriptor.standardOutput.writeAll(bytes)
    }

    /// Writes one line.
    static func emit(_ line: String) throws(SystemError) { try emit([line]) }

    /// The token printed for a document: SHA-256 of its canonical bytes, or `-` for none.
    static func hashToken(_ document: JSONValue?) -> String {
        guard let document else { return "-" }
        return SHA256.hash(document.canonicalBytes()).hex
    }
}
