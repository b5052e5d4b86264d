import Testing
import Foundation
import FerryTestSupport
@testable import Ferry

/// `FileReplacer`: record files replaced through a recycled spare inode, never at the expense
/// of a reader or a hard link that still holds the old file.
///
/// Serialized: one test spawns children all the time, and a child holding a copy of a spare's
/// descriptor makes the lease fail, which the tests that check reuse would see.
@Suite(.serialized) struct FileReplacerTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func replacesContentAndKeepsOneSpare() throws {
        let directory = try TemporaryDirectory()
        let replacer = FileReplacer(sparePath: directory.subpath("spare"))
        let a = directory.subpath("a.json")
        try FileSystem.writeFileAtomically(a, bytes("a long old content\n"), durable: false)
        let status = try replacer.replace(a, with: bytes("new\n"))
        #expect(try FileSystem.readFile(a) == bytes("new\n"))
        let onDisk = try #require(try FileSystem.status(a))
        #expect(status.inode == onDisk.inode && status.size == 4 && status.modificationNanoseconds == onDisk.modificationNanoseconds)
        #expect(Set(try FileSystem.contents(ofDirectory: directory.path).map(\.name)).isSubset(of: ["a.json", "spare"]))
    }

    #if os(Linux)
    @Test func reusesTheInodeOfTheFileItReplaced() throws {
        let directory = try TemporaryDirectory()
        let replacer = FileReplacer(sparePath: directory.subpath("spare"))
        let a = directory.subpath("a.json"), b = directory.subpath("b.json")
        try FileSystem.writeFileAtomically(a, bytes("a1"), durable: false)
        try FileSystem.writeFileAtomically(b, bytes("b1"), durable: false)
        let oldA = try #require(try FileSystem.status(a)).inode
        try replacer.replace(a, with: bytes("a2"))
        #expect(try FileSystem.status(directory.subpath("spare"))?.inode == oldA)
        try replacer.replace(b, with: bytes("b2"))
        // a's old inode now holds b's new content: no inode was allocated for b.
        #expect(try FileSystem.status(b)?.inode == oldA)
        #expect(try FileSystem.readFile(a) == bytes("a2"))
        #expect(try FileSystem.readFile(b) == bytes("b2"))
    }

    @Test func aReaderHoldingTheOldFileKeepsItIntact() throws {
        let directory = try TemporaryDirectory()
        let replacer = FileReplacer(sparePath: directory.subpath("spare"))
        let a = directory.subpath("a.json"), b = directory.subpath("b.json")
        try FileSystem.writeFileAtomically(a, bytes("old a content"), durable: false)
        try FileSystem.writeFileAtomically(b, bytes("b1"), durable: false)
        try replacer.replace(a, with: bytes("warm up"))
        // A reader opens a, then a is replaced and the next replacement would reuse the
        // inode it reads: the lease check sees the open file and a new spare is made.
        let held = try FileDescriptor.open(a, .readOnly)
        defer { held.close() }
        try replacer.replace(a, with: bytes("a2"))
        try replacer.replace(b, with: bytes("b2"))
        #expect(try held.readToEnd() == bytes("warm up"))
        #expect(try FileSystem.readFile(a) == bytes("a2"))
        #expect(try FileSystem.readFile(b) == bytes("b2"))
    }

    /// A lease another open breaks must not end the process: SIGIO, which the kernel sends
    /// the lease's owner by default, would (a CI run of the tests died of signal 29 that way).
    @Test func aBrokenLeaseSignalsNobody() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("spare")
        try FileSystem.writeFileAtomically(path, bytes("spare"), durable: false)
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        // A child another test spawns holds a copy of every descriptor until its exec, and
        // while it does the lease is refused (EAGAIN), as it should be: try again.
        var code = EAGAIN
        for _ in 0..<2_000 where code == EAGAIN {
            code = FileReplacer.takeQuietWriteLease(fd)
            if code == EAGAIN { usleep(1_000) }
        }
        try #require(code == 0, "no write lease on a file of our own: errno \(code)")
        // Checked before anything opens the file: with this process as the owner the open
        // below would kill the whole test run rather than fail this test.
        try #require(fcntl(fd, F_GETOWN) == 0, "the lease's owner was not cleared")
        #expect(fcntl(fd, 11 /* F_GETSIG */) == SIGURG)
        let breaker = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        let breakerCode = errno
        if breaker >= 0 { close(breaker) }
        #expect(breaker == -1 && breakerCode == EAGAIN, "the lease did not hold off another open")
    }

    /// The way the CI run met it: a child spawned while a replacement holds the spare's lease
    /// keeps a copy of the descriptor until its `exec`, so the lease outlives the `close`, and
    /// the next replacement's open of the spare breaks it. Replacements go on meanwhile, each
    /// one whole, and this process survives.
    @Test func replacementsWhileChildrenAreSpawnedSurviveAndStayWhole() throws {
        let directory = try TemporaryDirectory()
        let replacer = FileReplacer(sparePath: directory.subpath("spare"))
        let paths = (0..<8).map { directory.subpath("f\($0).json") }
        for path in paths { try FileSystem.writeFileAtomically(path, bytes("0"), durable: false) }
        let stop = StopFlag()
        let spawner = Thread {
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
            defer { free(argv[0]) }
            while !stop.isRaised {
                var child: pid_t = 0
                guard posix_spawn(&child, "/bin/true", nil, nil, argv, environ) == 0 else { break }
                var status: Int32 = 0
                while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            }
        }
        spawner.start()
        defer { stop.raise() }
        for round in 1...10_000 {
            try replacer.replace(paths[round % paths.count], with: bytes("\(round)"))
        }
        stop.raise()
        for (index, path) in paths.enumerated() {
            let last = (1...10_000).last { $0 % paths.count == index } ?? 0
            #expect(try FileSystem.readFile(path) == bytes("\(last)"))
        }
    }
    #endif

    @Test func filesOnAnotherFileSystemThanTheSpareAreStillReplaced() throws {
        let directory = try TemporaryDirectory()
        var here = stat(), there = stat()
        // /dev/shm is a tmpfs on Linux: another file system than the temporary directory's.
        guard stat(directory.path, &here) == 0, stat("/dev/shm", &there) == 0, here.st_dev != there.st_dev,
            access("/dev/shm", W_OK) == 0
        else { return }
        let elsewhere = "/dev/shm/ferry-replacer-\(getpid())"
        try FileSystem.createDirectories(elsewhere)
        defer { try? FileSystem.removeTree(elsewhere) }
        // The exchange fails (EXDEV): a rename of a temporary file beside the target instead.
        let replacer = FileReplacer(sparePath: directory.subpath("spare"))
        try FileSystem.writeFileAtomically(elsewhere + "/a.json", bytes("old"), durable: false)
        try replacer.replace(elsewhere + "/a.json", with: bytes("new"))
        try replacer.replace(elsewhere + "/a.json", with: bytes("newer"))
        // Renaming the spare onto a missing target fails the same way.
        let creating = FileReplacer(sparePath: directory.subpath("spare2"))
        try creating.replace(elsewhere + "/b.json", with: bytes("created"))
        #expect(try FileSystem.readFile(elsewhere + "/a.json") == bytes("newer"))
        #expect(try FileSystem.readFile(elsewhere + "/b.json") == bytes("created"))
    }

    @Test func aHardLinkedOldFileKeepsItsContent() throws {
        let directory = try TemporaryDirectory()
        let replacer = FileReplacer(sparePath: directory.subpath("spare"))
        let a = directory.subpath("a.json"), b = directory.subpath("b.json"), backup = directory.subpath("backup")
        try FileSystem.writeFileAtomically(a, bytes("a1"), durable: false)
        try FileSystem.writeFileAtomically(b, bytes("b1"), durable: false)
        try replacer.replace(a, with: bytes("a2"))
        #expect(link(a, backup) == 0)  // a backup tool snapshots with hard links
        try replacer.replace(a, with: bytes("a3"))
        try replacer.replace(b, with: bytes("b2"))
        #expect(try FileSystem.readFile(backup) == bytes("a2"))
        #expect(try FileSystem.readFile(a) == bytes("a3"))
        #expect(try FileSystem.readFile(b) == bytes("b2"))
    }

    @Test func aChangedModeDoesNotTravelToTheNextFile() throws {
        let directory = try TemporaryDirectory()
        let replacer = FileReplacer(sparePath: directory.subpath("spare"))
        let a = directory.subpath("a.json"), b = directory.subpath("b.json")
        try replacer.replace(a, with: bytes("a1"))  // created through a fresh spare
        try FileSystem.writeFileAtomically(b, bytes("b1"), durable: false)
        let defaultMode = try modeOf(a)
        #expect(chmod(a, 0o600) == 0)
        try replacer.replace(a, with: bytes("a2"))
        try replacer.replace(b, with: bytes("b2"))
        #expect(try modeOf(b) == defaultMode)
    }

    @Test func createsAMissingFileAndRefusesADirectory() throws {
        let directory = try TemporaryDirectory()
        let replacer = FileReplacer(sparePath: directory.subpath("spare"))
        try replacer.replace(directory.subpath("new.json"), with: bytes("n"))
        #expect(try FileSystem.readFile(directory.subpath("new.json")) == bytes("n"))
        try FileSystem.createDirectories(directory.subpath("dir.json/inside"))
        #expect(throws: SystemError.self) { try replacer.replace(directory.subpath("dir.json"), with: bytes("x")) }
        #expect(FileSystem.isDirectory(directory.subpath("dir.json/inside")))
    }

    @Test func storeUpdatesGoThroughTheSpareAndStayClean() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        let notes = try EntityName("Note")
        for round in 0..<3 {
            try store.write((0..<20).map { .put(RecordKey(entity: notes, id: try! RecordID("n\($0)")), ["round": .integer(Int64(round))]) })
        }
        #expect(try store.status().edits.isEmpty)
        #expect(try store.get(entity: notes, id: RecordID("n7")) == ["round": 2])
        let files = try FileSystem.contents(ofDirectory: directory.subpath("s/records/Note")).map(\.name)
        #expect(files.count == 20 && !files.contains { $0.hasPrefix(".") })
    }

    /// Tells a thread to stop.
    private final class StopFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var raised = false  // guarded by `lock`
        var isRaised: Bool { lock.withLock { raised } }
        func raise() { lock.withLock { raised = true } }
    }

    private func modeOf(_ path: String) throws -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw SystemError.current("stat", path: path) }
        return info.st_mode & 0o7777
    }
}
