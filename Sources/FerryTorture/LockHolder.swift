import Ferry

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ferry-torture hold <store>`: takes the store's lock and keeps it until killed, for lock
/// takeover tests. Prints `held <pid>` once the lock is taken.
struct LockHolder {
    let storePath: String

    func run() throws -> Never {
        let store = try Store.open(at: storePath)
        try store.beginExchange()
        try OutputLines.emit("held \(FileSystem.processID)")
        while true { pause() }
    }
}
