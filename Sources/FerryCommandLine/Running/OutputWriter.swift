import Ferry

/// Where a command's text goes: standard output, standard error, or a buffer in tests.
///
/// Each call is passed on at once (for a file descriptor, one `write` loop per call, with no
/// buffer in between), so nothing written is lost when `ferry` exits. Write whole lines or larger
/// pieces rather than many tiny strings.
///
/// ```swift
/// context.stdout.line("stored Users/42")
/// print("3 records", to: &output)   // also a TextOutputStream
/// ```
struct OutputWriter: TextOutputStream, Sendable {
    private let sink: @Sendable (UnsafeRawBufferPointer) -> Void

    /// A writer passing every piece of output to `sink`.
    init(_ sink: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        self.sink = sink
    }

    /// A writer to an open descriptor. Write errors (a closed pipe, a full disk) are ignored:
    /// there is nowhere left to report them.
    static func fileDescriptor(_ descriptor: FileDescriptor) -> OutputWriter {
        OutputWriter { bytes in try? descriptor.writeAll(bytes) }
    }

    /// A writer that drops everything.
    static let discarding = OutputWriter { _ in }

    /// Writes text as UTF-8.
    func write(_ string: String) {
        var text = string
        text.withUTF8 { sink(UnsafeRawBufferPointer($0)) }
    }

    /// Writes raw bytes, such as a document copied through unchanged.
    func write(bytes: [UInt8]) {
        bytes.withUnsafeBytes { sink($0) }
    }

    /// Writes `text` and a newline, in one piece.
    func line(_ text: String = "") {
        write(text + "\n")
    }
}
