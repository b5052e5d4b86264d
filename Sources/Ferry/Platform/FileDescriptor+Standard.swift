#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileDescriptor {
    /// The process's standard input (descriptor 0). Never close it.
    ///
    /// ```swift
    /// let document = try FileDescriptor.standardInput.readToEnd()
    /// ```
    public static let standardInput = FileDescriptor(rawValue: 0, path: "standard input")

    /// The process's standard output (descriptor 1). Never close it.
    public static let standardOutput = FileDescriptor(rawValue: 1, path: "standard output")

    /// The process's standard error (descriptor 2). Never close it.
    public static let standardError = FileDescriptor(rawValue: 2, path: "standard error")

    /// Whether the descriptor is a terminal (`isatty`), for choosing colors or progress output.
    public var isTerminal: Bool { isatty(rawValue) == 1 }
}
