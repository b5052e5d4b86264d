import Ferry
import FerryTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The test support's way of running programs: hundreds of tests run `ferry` through it, so a
/// run that is not seen to end fails a test that did nothing wrong.
@Suite struct ProgramRunnerTests {
    /// A program that leaves a child behind (here a shell starting `sleep` in the background)
    /// is seen to end when it ends. Foundation's `Process` learns of the end from a socket that
    /// every descendant inherits, so it would wait for the `sleep` as well: this run would time
    /// out, as a `ferry --help` once did while another test's server held that socket.
    @Test func aProgramIsSeenToEndWhileItsBackgroundChildLivesOn() throws {
        let result = try runProgram("/bin/sh", ["-c", "sleep 300 & echo $!"], timeout: 30)
        let sleeper = pid_t(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        defer { if sleeper > 0 { kill(sleeper, SIGKILL) } }
        #expect(result.exitCode == 0, "\(result)")
        #expect(sleeper > 0, "\(result)")
        #expect(kill(sleeper, 0) == 0, "the background child should still be running")
    }

    /// The child gets the standard input, environment and working directory asked for, and
    /// none of the test process's other descriptors.
    @Test(.enabled(if: FileSystem.isDirectory("/proc/self/fd"), "lists the child's descriptors in /proc"))
    func theChildGetsWhatItIsGivenAndNothingElse() throws {
        let directory = try TemporaryDirectory()
        // A descriptor of the test process's own, at a high number the child would not reuse
        // (the lowest free one from 900 up: never one that another test holds).
        let opened = open(directory.path, O_RDONLY)
        #expect(opened >= 0)
        let held = fcntl(opened, F_DUPFD, 900)
        #expect(held >= 900)
        defer { close(held); close(opened) }
        let script = #"read line; echo "$line|$FERRY_RUNNER_TEST|$(pwd)"; ls /proc/$$/fd"#
        let result = try runProgram(
            "/bin/sh", ["-c", script], stdin: "hello\n", environment: ["FERRY_RUNNER_TEST": "set"],
            currentDirectory: directory.path)
        #expect(result.exitCode == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "hello|set|\(directory.path)", "\(result)")
        let descriptors = Set(lines.dropFirst().compactMap { Int32($0) })
        #expect(descriptors.isSuperset(of: [0, 1, 2]), "\(result)")
        #expect(!descriptors.contains(held), "the child inherited the test process's descriptor: \(result)")
    }

    @Test func aSignalEndingTheProgramShowsAs128PlusItsNumber() throws {
        let result = try runProgram("/bin/sh", ["-c", "kill -9 $$"])
        #expect(result.exitCode == 128 + SIGKILL, "\(result)")
    }

    @Test func aProgramThatDoesNotEndInTimeIsKilledAndReported() throws {
        #expect(throws: CLIRunnerError.self) { try runProgram("/bin/sleep", ["300"], timeout: 1) }
    }

    /// A run that times out says what the program was doing: each thread's state and kernel
    /// wait (and its stack, where gdb is installed), and what it wrote to standard error, so a
    /// hang seen once in CI can be told from a slow machine.
    @Test(.enabled(if: FileSystem.isDirectory("/proc/self/task"), "reads the child's threads in /proc"))
    func aProgramThatDoesNotEndInTimeIsReportedWithWhatItWasDoing() throws {
        do {
            _ = try runProgram("/bin/sh", ["-c", "echo waiting >&2; exec sleep 300"], timeout: 2)
            Issue.record("the run should have timed out")
        } catch let error as CLIRunnerError {
            let text = error.description
            #expect(text.contains("did not finish within 2.0 seconds"), "\(text)")
            #expect(text.contains("(sleep): state S"), "\(text)")
            #expect(text.contains("its standard error so far:\nwaiting"), "\(text)")
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") {
                #expect(text.contains("Thread 1"), "\(text)")
            }
        }
    }

    @Test func aRelativeProgramPathIsFoundFromHereWhateverTheChildsDirectory() throws {
        let directory = try TemporaryDirectory()
        let here = FileManager.default.currentDirectoryPath
        let relative = String(repeating: "../", count: here.split(separator: "/").count) + "bin/sh"
        let result = try runProgram(relative, ["-c", "pwd"], currentDirectory: directory.path)
        #expect(result.exitCode == 0, "\(result)")
        #expect(result.stdout == directory.path + "\n", "\(result)")
    }

    @Test func aMissingProgramIsAnError() {
        #expect(throws: SystemError.self) { try runProgram("/nonexistent/ferry-runner-test", []) }
    }
}
