/// Where the JSON text of an import comes from. Either can be read more than once, which a
/// streamed import does: once to check every item, once to write.
///
/// ```swift
/// let report = try store.importRecords(from: .file("users.json"), into: EntityName("User"))
/// ```
public enum ImportInput: Sendable {
    /// A file, read in chunks.
    case file(String)
    /// Text already in memory.
    case bytes([UInt8])

    /// A fresh stream over the input.
    func stream(_ options: JSONArrayStream.Options) throws(ImportError) -> (JSONArrayStream, close: () -> Void) {
        switch self {
        case .bytes(let bytes):
            return (JSONArrayStream(source: .bytes(bytes), options: options), {})
        case .file(let path):
            let file: FileDescriptor
            do { file = try FileDescriptor.open(path, .readOnly) } catch { throw .store(.io(error)) }
            return (JSONArrayStream(source: .fileDescriptor(file), options: options), { file.close() })
        }
    }

    /// The whole input, refused past `limit` bytes as the parser refuses it.
    func readAll(limit: Int) throws(ImportError) -> [UInt8] {
        switch self {
        case .bytes(let bytes):
            return bytes
        case .file(let path):
            do { return try FileSystem.readFile(path, limit: limit) } catch {
                if error.isFileTooLarge {
                    throw .invalidJSON(line: 1, column: 1, reason: "the input is larger than the limit of \(limit) bytes")
                }
                throw .store(.io(error))
            }
        }
    }
}
