import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// The store lock: a writer waits a bounded time for another process's lock and then fails
/// naming the holder; a lock left by a killed process is taken over.
@Suite struct LockTakeoverTests {
    let notes = try! EntityName("Note")

    /// Starts `ferry-torture hold` on `path` and returns it with its pid once it holds the lock.
    func holdLock(_ path: String, _ directory: TemporaryDirectory) async throws -> (ChildProcess, Int32) {
        let scratch = directory.subpath("holder")
        try FileSystem.createDirectory(scratch)
        let holder = try ChildProcess(try tortureBinaryPath(), ["hold", path], outputDirectory: scratch)
        let held = await holder.waitForOutput(lineStartingWith: "held ", timeout: 120)
        try #require(held, "the holder never took the lock: \(holder.errorOutput)")
        let pid = try #require(holder.outputLines.first.flatMap { Int32($0.dropFirst(5)) })
        #expect(pid == holder.pid)
        return (holder, pid)
    }

    @Test func lockedStoreNamesTheHolderAndIsTakenOverAfterItDies() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("store")
        var options = StoreOptions()
        options.lockTimeout = 0.2
        let writer = try Store.create(at: path, options: options)
        try writer.put(["n": 1], entity: notes, id: RecordID("before"))
        let (holder, pid) = try await holdLock(path, directory)

        #expect(throws: StoreError.locked(path: path, holder: pid, waitedSeconds: 0.2)) {
            try writer.put(["n": 2], entity: notes, id: RecordID("during"))
        }
        #expect(throws: StoreError.locked(path: path, holder: pid, waitedSeconds: 0.2)) {
            _ = try Store.open(at: path, options: options)
        }
        let message = StoreError.locked(path: path, holder: pid, waitedSeconds: 0.2).description
        #expect(message.contains("process \(pid)") && message.contains(path))

        holder.kill()
        holder.wait()
        try writer.put(["n": 3], entity: notes, id: RecordID("after"))
        let reopened = try Store.open(at: path, options: options)
        #expect(try reopened.ids(of: notes).map(\.rawValue) == ["after", "before"])
        #expect(try reopened.get(entity: notes, id: RecordID("during")) == nil)
    }

    @Test func killedWriterLeavesNoLockBehind() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("store")
        try Store.create(at: path).close()
        for round in 0..<3 {
            let (holder, _) = try await holdLock(path, directory)
            holder.kill()
            holder.wait()
            var options = StoreOptions()
            options.lockTimeout = 5
            let store = try Store.open(at: path, options: options)
            try store.put(["round": .integer(Int64(round))], entity: notes, id: RecordID("r"))
            store.close()
        }
    }
}
