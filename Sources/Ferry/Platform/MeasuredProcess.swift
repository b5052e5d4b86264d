#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program to completion and reports its exit status, wall time and peak memory
/// (from `wait4`'s resource usage), as benchmarks that time whole processes need.
package enum MeasuredProcess {
    /// What a finished child reported.
    package struct Outcome: Sendable {
        /// The exit status, or 128 + signal number when killed.
        package var status: Int32
        /// Wall time from spawn to exit, in seconds.
        package var seconds: Double
        /// Peak resident memory, in MiB.
        package var peakMemoryMiB: Double
        /// CPU time the process (all its threads) spent in its own code, in seconds.
        package var userSeconds: Double = 0
        /// CPU time the kernel spent on the process's behalf, in seconds. The kernel's own
        /// threads (the write-back of the process's dirty pages, memory reclaim) are not in it.
        package var systemSeconds: Double = 0

        /// User and system CPU time together.
        package var cpuSeconds: Double { userSeconds + systemSeconds }
    }

    /// Runs `executable` with `arguments`, its output sent to /dev/null.
    package static func run(_ executable: String, _ arguments: [String]) throws(SystemError) -> Outcome {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw SystemError("posix_spawn", path: executable, code: spawned) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 {
            guard errno == EINTR else { throw .current("wait4", path: executable) }
        }
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &end)
        let seconds = Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
        let exited = status & 0x7f == 0
        let code = exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        #if canImport(Darwin)
        let peak = Double(usage.ru_maxrss) / 1_048_576  // bytes on Darwin
        #else
        let peak = Double(usage.ru_maxrss) / 1024  // KiB on Linux
        #endif
        func interval(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return Outcome(
            status: code, seconds: seconds, peakMemoryMiB: peak, userSeconds: interval(usage.ru_utime),
            systemSeconds: interval(usage.ru_stime))
    }

    /// The full path of a program found on `PATH`, or `nil`.
    package static func find(_ name: String) -> String? {
        guard let path = getenv("PATH") else { return nil }
        for directory in String(cString: path).split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
