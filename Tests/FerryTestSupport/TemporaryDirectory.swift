import Ferry
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A new, empty directory for one test, removed with everything in it when the value is released.
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// let store = directory.subpath("store")
/// let result = try runFerry(["init", store])
/// ```
public final class TemporaryDirectory: Sendable {
    /// The directory's absolute path, with symbolic links resolved (so it matches what a
    /// program run inside it sees as its working directory).
    public let path: String

    /// Creates a directory named `<prefix>.XXXXXX` in the system's temporary folder (`mkdtemp`).
    ///
    /// - Parameter prefix: The start of the directory's name.
    /// - Throws: ``SystemError`` when the directory cannot be created.
    public init(prefix: String = "ferry-test") throws {
        var base = NSTemporaryDirectory()
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let start = buffer.baseAddress, mkdtemp(start) != nil else { return nil }
            return String(cString: start)
        }
        guard let created else {
            throw SystemError("mkdtemp", path: "\(base)/\(prefix).XXXXXX", code: errno)
        }
        guard let resolved = realpath(created, nil) else {
            let error = SystemError("realpath", path: created, code: errno)
            try? FileSystem.removeTree(created)
            throw error
        }
        defer { free(resolved) }
        path = String(cString: resolved)
    }

    /// `name` inside the directory; nothing is created.
    ///
    /// ```swift
    /// directory.subpath("a/b.json")  // "/tmp/ferry-test.x1Y2z3/a/b.json"
    /// ```
    public func subpath(_ name: String) -> String {
        path + "/" + name
    }

    deinit {
        // Best effort: a test's leftovers must not fail the next test.
        try? FileSystem.removeTree(path)
    }
}
