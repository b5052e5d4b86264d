import Ferry
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, its standard output and error going to files,
/// that a test can kill at any moment (crash tests SIGKILL it mid-write).
///
/// ```swift
/// let child = try ChildProcess(try tortureBinaryPath(), ["writer", store, "7"], outputDirectory: scratch)
/// _ = await child.waitForOutput(lineStartingWith: "ready", timeout: 60)
/// child.kill()
/// let status = child.wait()
/// ```
public final class ChildProcess: @unchecked Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// Where its standard output goes.
    public let stdoutPath: String
    /// Where its standard error goes.
    public let stderrPath: String
    private let lock = NSCondition()
    private var status: Int32?  // guarded by `lock`
    private var reaping = false  // guarded by `lock`: a thread waits in `waitpid`, without the lock

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - outputDirectory: a directory for the `stdout` and `stderr` files (overwritten).
    ///   - standardInput: a file to read standard input from; `/dev/null` when `nil`.
    ///   - environment: the child's whole environment; the test process's own when `nil`.
    ///   - currentDirectory: the child's working directory; the test process's own when `nil`.
    ///   - defaultSignals: signals the child starts with their default action, whatever the
    ///     test process does with them (SIGXFSZ, which kills a writer past its file size limit).
    /// - Throws: ``SystemError`` when the process cannot be started.
    public init(
        _ executable: String, _ arguments: [String], outputDirectory: String,
        standardInput: String? = nil, environment: [String: String]? = nil, currentDirectory: String? = nil,
        defaultSignals: [Int32] = []
    ) throws {
        stdoutPath = outputDirectory + "/stdout"
        stderrPath = outputDirectory + "/stderr"
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let currentDirectory {
            let added = addChangeDirectory(&actions, currentDirectory)
            guard added == 0 else { throw SystemError("posix_spawn_file_actions_addchdir_np", path: currentDirectory, code: added) }
        }
        // And nothing else of the test process's: a child holding a copy of a descriptor that
        // another test waits on (the socket through which Foundation's `Process` learns that
        // its child exited, a pipe's write end) keeps that test waiting until this child ends.
        #if canImport(Darwin)
        var attributes: posix_spawnattr_t? = nil
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, .init(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        closeDescriptorsFromThree(&actions)
        #endif
        if !defaultSignals.isEmpty {
            var signals = sigset_t()
            sigemptyset(&signals)
            for signal in defaultSignals { sigaddset(&signals, signal) }
            posix_spawnattr_setsigdefault(&attributes, &signals)
            // Nor blocked: the child starts with no signal blocked.
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigmask(&attributes, &none)
            var flags: Int16 = 0
            posix_spawnattr_getflags(&attributes, &flags)
            posix_spawnattr_setflags(&attributes, flags | Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { variables in
            variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for variable in envp ?? [] { free(variable) } }
        // A relative path names a file from here, not from the child's working directory.
        let path = executable.hasPrefix("/") ? executable : FileManager.default.currentDirectoryPath + "/" + executable
        var child: pid_t = 0
        let result = envp.map { posix_spawn(&child, path, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&child, path, &actions, &attributes, argv, environ)
        guard result == 0 else { throw SystemError("posix_spawn", path: executable, code: result) }
        pid = child
    }

    deinit {
        if lock.withLock({ status == nil }) {
            Glibc_kill(pid, SIGKILL)
            _ = wait()
        }
    }

    /// Sends `signal` (SIGKILL by default).
    public func kill(_ signal: Int32 = SIGKILL) { Glibc_kill(pid, signal) }

    /// Waits for the child to end; returns its exit code, or 128 + the signal that ended it.
    @discardableResult
    public func wait() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let status { return status }
            guard reaping else { break }
            lock.wait()  // another thread reaps it
        }
        // The lock is not held while waiting, so that ``hasExited`` and ``diagnosis()`` answer
        // meanwhile (``wait(timeout:)`` waits here on a thread of its own).
        reaping = true
        lock.unlock()
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        lock.lock()
        let code = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        status = code
        reaping = false
        lock.broadcast()
        return code
    }

    /// Waits up to `timeout` seconds for the child to end; returns what ``wait()`` returns, or
    /// `nil` if the child is still running then (it is left running: kill it, then ``wait()``).
    ///
    /// The end is learned from `waitpid` on a thread of its own, never from a descriptor closing,
    /// so another process that inherited one of the test process's descriptors cannot hide it.
    public func wait(timeout: Double) -> Int32? {
        let ended = DispatchSemaphore(value: 0)
        Thread { [self] in
            wait()
            ended.signal()
        }.start()
        guard ended.wait(timeout: .now() + timeout) == .success else { return nil }
        return wait()
    }

    /// Whether the child has ended, without waiting.
    public var hasExited: Bool {
        lock.withLock {
            if status != nil { return true }
            // A thread waiting in `waitpid` notes the end as soon as it comes.
            if reaping { return false }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return false }
            status = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            return true
        }
    }

    /// Sends SIGKILL `microseconds` after a complete line starting with `prefix` appears on
    /// standard output (or after the call, when `prefix` is `nil`). The wait and the delay run
    /// on a thread of their own, so the kill lands on time even when the tests' shared
    /// concurrency pool is busy, and no pool thread is blocked meanwhile.
    /// - Returns: whether the line appeared; the child is killed either way (at the timeout, or
    ///   at once if it exited first).
    public func kill(microseconds: UInt32, afterLineStartingWith prefix: String? = nil, timeout: Double = 120) async -> Bool {
        await withCheckedContinuation { continuation in
            let thread = Thread { [self] in
                var seen = prefix == nil
                if let prefix {
                    seen = waitForOutputChanges(timeout: timeout) { [self] in
                        completeLines(of: stdoutPath).contains { $0.hasPrefix(prefix) }
                    }
                }
                // The chosen moment of the kill (fault injection, not a wait for anything).
                if seen { _ = try? Poll.waitForReadable([], timeout: .microseconds(Int64(microseconds))) }
                Glibc_kill(pid, SIGKILL)
                continuation.resume(returning: seen)
            }
            thread.start()
        }
    }

    /// Polls standard output until a complete line starting with `prefix` appears, the child
    /// exits, or `timeout` seconds pass. Returns whether the line appeared. Polls on a thread
    /// of its own, so the deadline holds however busy the tests' shared concurrency pool is (a
    /// task polling there could be resumed only after the deadline, and miss a line that came
    /// in time), and no pool thread is held meanwhile.
    public func waitForOutput(lineStartingWith prefix: String, timeout: Double) async -> Bool {
        await waitForOutput(timeout: timeout) { $0.hasPrefix(prefix) }
    }

    /// Polls standard output until a complete line containing `text` appears (see
    /// ``waitForOutput(lineStartingWith:timeout:)``).
    public func waitForOutput(lineContaining text: String, timeout: Double) async -> Bool {
        await waitForOutput(timeout: timeout) { $0.contains(text) }
    }

    /// Polls standard output until a complete line `matches`, the child exits, or `timeout`
    /// seconds pass (see ``waitForOutput(lineStartingWith:timeout:)``).
    public func waitForOutput(timeout: Double, where matches: @escaping @Sendable (String) -> Bool) async -> Bool {
        await waitForOutputLines(timeout: timeout) { $0.contains(where: matches) }
    }

    /// Polls standard output until its complete lines satisfy `condition` (a count of lines,
    /// say), the child exits, or `timeout` seconds pass.
    public func waitForOutputLines(timeout: Double, until condition: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        let path = stdoutPath
        return await waitUntil(timeout: timeout) { [self] in condition(completeLines(of: path)) }
    }

    /// Waits until standard error contains `text`, the child exits, or `timeout` seconds pass.
    public func waitForError(containing text: String, timeout: Double) async -> Bool {
        await waitForErrorOutput(timeout: timeout) { $0.contains(text) }
    }

    /// Waits until standard error satisfies `condition` (a count of lines, say), the child
    /// exits, or `timeout` seconds pass.
    public func waitForErrorOutput(timeout: Double, until condition: @escaping @Sendable (String) -> Bool) async -> Bool {
        await waitUntil(timeout: timeout) { [self] in condition(errorOutput) }
    }

    /// Asks `condition` on a thread of its own (see ``waitForOutput(lineStartingWith:timeout:)``)
    /// until it holds, the child exits (then asked once more), or `timeout` seconds pass.
    private func waitUntil(timeout: Double, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
        await waitForChanges(in: [FileSystem.parentPath(of: stdoutPath)], timeout: timeout, until: condition)
    }

    /// Waits until `condition` holds, asking it again each time the kernel says something in
    /// `directories` changed (files the child writes: a store's journal, its `.ferry`), until
    /// the child exits (then asked once more), or `timeout` seconds pass. Returns whether it
    /// held. Waits on a thread of its own (see ``waitForOutput(lineStartingWith:timeout:)``).
    public func waitForChanges(in directories: [String], timeout: Double, until condition: @escaping @Sendable () -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            let thread = Thread { [self] in
                continuation.resume(returning: waitForChanges(in: directories, timeout: timeout, until: condition))
            }
            thread.start()
        }
    }

    /// Asks `condition` again each time the kernel says the child's output files changed (a
    /// write, or their closing when the child exits), until it holds, the child exits (then
    /// asked once more), or `timeout` seconds pass. Blocks the calling thread.
    private func waitForOutputChanges(timeout: Double, until condition: () -> Bool) -> Bool {
        waitForChanges(in: [FileSystem.parentPath(of: stdoutPath)], timeout: timeout, until: condition)
    }

    /// ``waitForChanges(in:timeout:until:)``, blocking the calling thread.
    private func waitForChanges(in directories: [String], timeout: Double, until condition: () -> Bool) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int64(timeout * 1000)))
        // Watched before the first look, so that a write between the look and the wait wakes it.
        let events = try? DirectoryEvents()
        for directory in directories { _ = try? events?.watch(directory, modifications: true) }
        while clock.now < deadline {
            if condition() { return true }
            if hasExited { return condition() }
            // Each wait ends at the deadline, or within a second to look at the child again
            // (it may have ended without a write the events would show).
            let wait = min(clock.now.duration(to: deadline), .seconds(1))
            if let events {
                _ = try? events.read(timeout: wait, wakeup: nil)
            } else {
                // No inotify instance left (the kernel's limit per user): look again shortly.
                _ = try? Poll.waitForReadable([], timeout: min(wait, .milliseconds(20)))
            }
        }
        return condition()
    }

    /// The complete lines of standard output (a torn last line without newline is left out).
    public var outputLines: [String] { completeLines(of: stdoutPath) }

    /// Standard error as text.
    public var errorOutput: String {
        String(decoding: (try? FileSystem.readFile(stderrPath)) ?? [], as: UTF8.self)
    }

    private func completeLines(of path: String) -> [String] {
        guard let bytes = try? FileSystem.readFile(path) else { return [] }
        guard let end = bytes.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        return bytes[..<end].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
    }
}

@inline(__always) private func Glibc_kill(_ pid: pid_t, _ signal: Int32) { _ = kill(pid, signal) }

/// Adds to `actions` a change of the child's working directory to `path`; returns 0 or an errno.
#if canImport(Darwin)
private func addChangeDirectory(_ actions: inout posix_spawn_file_actions_t?, _ path: String) -> Int32 {
    posix_spawn_file_actions_addchdir_np(&actions, path)
}
#else
private func addChangeDirectory(_ actions: inout posix_spawn_file_actions_t, _ path: String) -> Int32 {
    guard let addChangeDirectory = spawnChangeDirectory else { return ENOSYS }
    return addChangeDirectory(&actions, path)
}

/// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), left out of Swift's Glibc
/// module as a GNU extension; `nil` where the C library lacks it.
private let spawnChangeDirectory: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32)? =
    dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
    }
#endif

#if !canImport(Darwin)
/// Adds to `actions` the closing of every descriptor from 3 up, in the child: all at once where
/// the C library can (glibc 2.34 and later), else each one open now (one that another thread
/// opens before the spawn may still slip through).
private func closeDescriptorsFromThree(_ actions: inout posix_spawn_file_actions_t) {
    if let closeFrom = spawnCloseFrom {
        _ = closeFrom(&actions, 3)
        return
    }
    // A descriptor closed meanwhile is no error: the child ignores it.
    for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
        if let descriptor = Int32(name), descriptor > 2 { posix_spawn_file_actions_addclose(&actions, descriptor) }
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module leaves out
/// (it is a GNU extension); `nil` where the C library lacks it.
private let spawnCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? =
    dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }
#endif
