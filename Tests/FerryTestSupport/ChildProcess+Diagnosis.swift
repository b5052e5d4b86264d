import Ferry
import Foundation

/// What a child that did not finish in time was doing, for the test's failure message: whether
/// it was running or waiting, and on what.
extension ChildProcess {
    /// A few lines on the running child: each thread's state, CPU time and kernel wait channel
    /// (from `/proc`), then each thread's stack from `gdb` when it is installed (Debian's package
    /// is on the CI machines). Empty when the child already ended or nothing can be read. Takes up
    /// to a minute (gdb attaching to a large debug binary); call it before killing the child.
    public func diagnosis() -> String {
        #if os(Linux)
        guard !hasExited else { return "" }
        var lines: [String] = []
        let ticks = max(Double(sysconf(Int32(_SC_CLK_TCK))), 1)
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"))?.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) } ?? []
        for task in tasks {
            let directory = "/proc/\(pid)/task/\(task)"
            guard let stat = try? String(contentsOfFile: directory + "/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (name) ": state, ..., utime and stime are fields 14 and 15 of the line.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12 else { continue }
            let cpu = ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks
            let name = stat[stat.index(after: stat.firstIndex(of: "(") ?? stat.startIndex)..<close]
            let wait = (try? String(contentsOfFile: directory + "/wchan", encoding: .utf8)) ?? "?"
            lines.append("thread \(task) (\(name)): state \(fields[0]), cpu \(String(format: "%.2f", cpu)) s, waiting in \(wait.isEmpty ? "-" : wait)")
        }
        if let stacks = gdbStacks() { lines.append(contentsOf: stacks) }
        return lines.joined(separator: "\n")
        #else
        return ""
        #endif
    }

    /// Every thread's stack, through `gdb -p` in batch mode: its `Thread` and frame lines only.
    private func gdbStacks() -> [String]? {
        guard let gdb = ["/usr/bin/gdb", "/usr/local/bin/gdb"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }),
            let scratch = try? TemporaryDirectory(prefix: "ferry-gdb"),
            let debugger = try? ChildProcess(gdb, ["-p", "\(pid)", "-batch", "-nx", "-ex", "thread apply all bt 24"], outputDirectory: scratch.path)
        else { return nil }
        guard debugger.wait(timeout: 60) != nil else {
            debugger.kill()
            debugger.wait()
            return ["(gdb did not finish within 60 seconds)"]
        }
        let output = String(decoding: (try? FileSystem.readFile(debugger.stdoutPath)) ?? [], as: UTF8.self)
        let frames = output.split(separator: "\n").filter { $0.hasPrefix("Thread ") || $0.hasPrefix("#") }
        return frames.prefix(400).map { String($0.prefix(240)) }
    }
}
