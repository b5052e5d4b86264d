import Foundation

/// The store's write lock: an exclusive `flock` on `.ferry/lock`.
///
/// The kernel drops a `flock` when its holder dies, so a lock left by a killed process is
/// simply taken over. The holder's pid is written into the file for error messages.
final class StoreLock {
    private let path: String
    private let storePath: String
    private let file: FileDescriptor
    private var depth = 0

    init(path: String, storePath: String) throws(StoreError) {
        self.path = path
        self.storePath = storePath
        do { file = try FileDescriptor.open(path, .readWrite, options: .create) } catch { throw .io(error) }
    }

    deinit { file.close() }

    /// Takes the lock, waiting up to `timeout` seconds; re-entrant within this object.
    func acquire(timeout: Double) throws(StoreError) {
        if depth > 0 {
            depth += 1
            return
        }
        let deadline = Date().addingTimeInterval(timeout)
        var pause = 0.001
        while true {
            let acquired: Bool
            do { acquired = try file.lockExclusively(wait: false) } catch { throw .io(error) }
            if acquired { break }
            if Date() >= deadline {
                throw .locked(path: storePath, holder: holder(), waitedSeconds: timeout)
            }
            Thread.sleep(forTimeInterval: pause)
            pause = min(pause * 2, 0.05)
        }
        depth = 1
        // Written only when the file does not name this process already: a sync takes the lock
        // of each store several times, and each write is a change the file system journals,
        // which on a busy disk waits for the journal's commit.
        let pid = Array("\(FileSystem.processID)\n".utf8)
        guard (try? file.read(at: 0, count: 64)) != pid else { return }
        _ = try? file.truncate(to: 0)
        _ = try? file.seek(to: 0)
        try? file.writeAll(pid)
    }

    /// Releases one level of the lock.
    func release() {
        guard depth > 0 else { return }
        depth -= 1
        if depth == 0 { unlockFile() }
    }

    private func unlockFile() {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        FileSystem.unlock(file)
        #endif
    }

    /// The pid written by the current holder, if readable.
    private func holder() -> Int32? {
        guard let bytes = try? FileSystem.readFile(path, limit: 64) else { return nil }
        return Int32(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
