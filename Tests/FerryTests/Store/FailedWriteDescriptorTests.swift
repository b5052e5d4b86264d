import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

#if canImport(Glibc)
import Glibc
#endif

/// A write that fails closes its descriptor once. Closing a number twice closes, the second
/// time, whatever another thread opened under that number in between: a journal, a socket,
/// a spare file (a test run saw `fstat: Bad file descriptor` on a spare that way, the second
/// close coming from an atomic write whose rename had failed).
@Suite(.serialized) struct FailedWriteDescriptorTests {
    /// Atomic writes onto a directory fail at the rename, over and over, while another thread
    /// opens, checks and closes files: that thread's descriptors must stay open until it
    /// closes them.
    @Test func aFailedAtomicWriteNeverClosesAnotherThreadsFile() throws {
        let directory = try TemporaryDirectory()
        let target = directory.subpath("taken")
        try FileSystem.createDirectories(target + "/inside")
        let probe = directory.subpath("probe")
        try FileSystem.writeFileAtomically(probe, Array("probe".utf8), durable: false)
        let watcher = DescriptorWatcher(path: probe)
        let thread = Thread { watcher.run() }
        thread.start()
        var failures = 0
        for _ in 0..<4_000 {
            do { try FileSystem.writeFileAtomically(target, Array("x".utf8), durable: false) } catch { failures += 1 }
        }
        watcher.stop()
        #expect(failures == 4_000, "a write onto a directory succeeded")
        #expect(watcher.rounds > 0)
        #expect(watcher.closedUnderIt == 0, "another thread's descriptor was closed under it \(watcher.closedUnderIt) times")
        // Nothing of the failed writes is left behind, and the directory is untouched.
        #expect(try FileSystem.contents(ofDirectory: directory.path).map(\.name).sorted() == ["probe", "taken"])
        #expect(FileSystem.isDirectory(target + "/inside"))
    }
}

/// Opens a file, checks that its descriptor is still open a moment later, closes it; until
/// stopped. Counts the times the descriptor was found closed by someone else.
private final class DescriptorWatcher: @unchecked Sendable {
    let path: String
    private let lock = NSLock()
    private var stopped = false  // guarded by `lock`
    private var finished = false  // guarded by `lock`
    private(set) var rounds = 0  // written by the watching thread, read after `stop()`
    private(set) var closedUnderIt = 0  // likewise

    init(path: String) { self.path = path }

    func run() {
        while !lock.withLock({ stopped }) {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            var info = stat()
            var closedElsewhere = false
            for _ in 0..<20 where !closedElsewhere { closedElsewhere = fstat(fd, &info) != 0 }
            if close(fd) != 0 { closedElsewhere = true }
            if closedElsewhere { closedUnderIt += 1 }
            rounds += 1
        }
        lock.withLock { finished = true }
    }

    /// Stops the thread and waits for it.
    func stop() {
        lock.withLock { stopped = true }
        while !lock.withLock({ finished }) { usleep(1_000) }
    }
}
