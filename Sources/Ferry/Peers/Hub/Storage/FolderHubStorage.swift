import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A hub kept in a folder: a local disk, a USB stick, or a folder that Dropbox, iCloud Drive,
/// OneDrive or Syncthing copies between machines.
///
/// Every write goes to a temporary name (a dot file the hub never reads) and is renamed into
/// place after an `fsync`, so a reader, or the sync tool copying the folder, never sees half
/// of an object under its real name. A create-only write links the temporary file to its name,
/// which fails when the name exists. Each file's tag is its size, modification time and inode.
public final class FolderHubStorage: HubStorage, @unchecked Sendable {
    /// The hub's folder.
    public let root: String
    private let counter = RequestCounter()

    /// A hub in the folder at `root` (absolute or relative to the working directory).
    public init(root: String) {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.root = root
    }

    public var location: String { root }
    public var requestCount: Int { counter.value }

    public func list(prefix: String) async throws(HubError) -> [HubObject] {
        counter.add()
        guard FileSystem.isDirectory(root) else { throw .missingRoot(location: root) }
        var objects: [HubObject] = []
        // The folder holding the prefix, and what names in it must start with.
        let slash = prefix.lastIndex(of: "/")
        let directory = slash.map { String(prefix[..<$0]) } ?? ""
        let namePrefix = slash.map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
        try collect(directory: directory, namePrefix: namePrefix, into: &objects)
        return objects.sorted { $0.key < $1.key }
    }

    private func collect(directory: String, namePrefix: String, into objects: inout [HubObject]) throws(HubError) {
        let path = directory.isEmpty ? root : root + "/" + directory
        let entries: [FileSystem.DirectoryEntry]
        do { entries = try FileSystem.contents(ofDirectory: path) } catch {
            if error.isNotFound || error.isNotADirectory { return }
            throw .storage("\(path): \(error.message)")
        }
        for entry in entries where entry.name.hasPrefix(namePrefix) && !entry.name.hasPrefix(".") {
            let key = directory.isEmpty ? entry.name : directory + "/" + entry.name
            switch entry.kind {
            case .directory:
                try collect(directory: key, namePrefix: "", into: &objects)
            case .regular:
                guard let status = try? FileSystem.status(root + "/" + key) else { continue }
                objects.append(HubObject(key: key, tag: Self.tag(of: status), size: status.size))
            default:
                continue  // links and devices are never hub objects
            }
        }
    }

    public func get(_ key: String, limit: Int) async throws(HubError) -> (bytes: [UInt8], tag: String)? {
        counter.add()
        let path = root + "/" + key
        let read: (bytes: [UInt8], tag: String, size: Int64)?
        do {
            let file = try FileDescriptor.open(path, .readOnly)
            read = try file.closeAfter { () throws(SystemError) -> (bytes: [UInt8], tag: String, size: Int64)? in
                let status = try file.status()
                guard status.kind == .regular else { return nil }
                // Measured before it is read: an object over the limit is never read.
                guard status.size <= Int64(limit) else { return ([], "", status.size) }
                return (try file.readToEnd(), Self.tag(of: status), status.size)
            }
        } catch {
            if error.isNotFound || error.isNotADirectory {
                if !FileSystem.isDirectory(root) { throw .missingRoot(location: root) }
                return nil
            }
            throw .storage("\(path): \(error.message)")
        }
        guard let read else { return nil }
        // A file that grew past the limit between the measure and the read is refused too.
        guard read.size <= Int64(limit), read.bytes.count <= limit else {
            throw refusal(of: key, size: max(read.size, Int64(read.bytes.count)), limit: limit)
        }
        return (read.bytes, read.tag)
    }

    public func put(_ key: String, _ bytes: [UInt8], createOnly: Bool) async throws(HubError) -> String {
        counter.add()
        guard FileSystem.isDirectory(root) else { throw .missingRoot(location: root) }
        let path = root + "/" + key
        let directory = FileSystem.parentPath(of: path)
        do {
            _ = try FileSystem.createDirectories(directory)
            let temporary = directory + "/.tmp-\(FileSystem.lastComponent(of: path))-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let file = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .exclusive])
            let status: FileStatus
            do {
                try file.writeAll(bytes)
                try file.synchronize()
                status = try file.status()
                file.close()
            } catch {
                file.close()
                try? FileSystem.removeFile(temporary)
                throw error
            }
            if createOnly {
                let linked = link(temporary, path) == 0
                let code = errno
                try? FileSystem.removeFile(temporary)
                if !linked {
                    if code == EEXIST { throw HubError.alreadyExists(location: root + "/" + key) }
                    throw SystemError("link", path: path, code: code)
                }
            } else {
                try FileSystem.rename(temporary, to: path)
            }
            try FileSystem.synchronizeDirectory(directory)
            return Self.tag(of: status)
        } catch let error as HubError {
            throw error
        } catch let error as SystemError {
            throw .storage("\(path): \(error.message)")
        } catch {
            throw .storage("\(path): \(error)")
        }
    }

    public func delete(_ key: String) async throws(HubError) {
        counter.add()
        do { try FileSystem.removeFile(root + "/" + key) } catch {
            if error.isNotFound { return }
            throw .storage("\(root)/\(key): \(error.message)")
        }
    }

    /// A file's tag: anything that rewrites it changes its inode (a rename) or its time.
    static func tag(of status: FileStatus) -> String {
        "\(status.size)-\(status.modificationNanoseconds)-\(status.inode)"
    }
}
