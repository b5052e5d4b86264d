#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The record files a status scan found, keyed as the index image keys records
/// (`<entity>\t<encoded id>`), so each record of the index finds its file without decoding
/// the file's name.
struct RecordFileListing {
    /// A file in an entity folder.
    struct File {
        var entity: EntityName
        /// The folder it is in.
        var directory: String
        var name: String
        /// The path below `records/<Entity>/` (long ids have `~` folders).
        var relativeName: String
        var status: FileStatus

        var path: String { directory + "/" + name }
        var displayPath: String { "records/\(entity.rawValue)/\(relativeName)" }
    }

    private var files: [File] = []
    private var keys: [[UInt8]] = []
    private var claimed: [Bool] = []
    private var positions: [SortKey: Int] = [:]
    private var isIndexed = false
    /// Files whose paths cannot be canonical record file paths, kept for the slow path.
    private var odd: [File] = []

    /// Adds a file.
    /// - Parameter encodedPrefix: the encoded id so far, from the `~` folders the file is in;
    ///   `nil` when one of them is not a whole 240-byte piece.
    mutating func add(_ file: File, encodedPrefix: String?) {
        let name = file.name.utf8
        let suffix = RecordFileName.fileExtension.utf8
        // Only a path shaped as Ferry writes it can match an index record: whole pieces in the
        // folders, then the last piece of the encoded id (1 to 240 bytes) and the extension.
        guard let encodedPrefix, file.name.hasSuffix(RecordFileName.fileExtension), name.count > suffix.count,
            name.count - suffix.count <= RecordFileName.pieceLength
        else {
            odd.append(file)
            return
        }
        var key: [UInt8] = []
        key.reserveCapacity(file.entity.rawValue.utf8.count + 1 + encodedPrefix.utf8.count + name.count)
        key.append(contentsOf: file.entity.rawValue.utf8)
        key.append(9)
        key.append(contentsOf: encodedPrefix.utf8)
        key.append(contentsOf: name.prefix(name.count - suffix.count))
        files.append(file)
        keys.append(key)
        isIndexed = false
    }

    private mutating func indexIfNeeded() {
        guard !isIndexed else { return }
        positions = [:]
        positions.reserveCapacity(keys.count)
        for index in keys.indices where positions[SortKey(keys[index][...])] == nil {
            positions[SortKey(keys[index][...])] = index
        }
        claimed = Array(repeating: false, count: files.count)
        isIndexed = true
    }

    /// Removes and returns the file of the record with this sort key.
    mutating func take(_ sortKey: ArraySlice<UInt8>) -> File? {
        indexIfNeeded()
        guard let index = positions[SortKey(sortKey)], !claimed[index] else { return nil }
        claimed[index] = true
        return files[index]
    }

    /// The files no record took.
    var unclaimed: [File] {
        files.indices.compactMap { index in index < claimed.count && claimed[index] ? nil : files[index] } + odd
    }

    /// A sort key as a dictionary key: hashed in one pass over its bytes, and a view of bytes
    /// held elsewhere (the image's lines), so a lookup copies nothing.
    struct SortKey: Hashable {
        let bytes: ArraySlice<UInt8>

        init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

        static func == (left: SortKey, right: SortKey) -> Bool {
            RecordFileListing.compare(left.bytes, right.bytes) == 0
        }

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Byte order, a shorter key first when it is a prefix of the other.
    static func compare(_ left: ArraySlice<UInt8>, _ right: ArraySlice<UInt8>) -> Int {
        left.withUnsafeBytes { a in
            right.withUnsafeBytes { b in
                let common = min(a.count, b.count)
                if common > 0, let x = a.baseAddress, let y = b.baseAddress {
                    let order = memcmp(x, y, common)
                    if order != 0 { return order < 0 ? -1 : 1 }
                }
                return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
            }
        }
    }
}
