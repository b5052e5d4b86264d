/// Where an index file is written: into memory, or to a file through a 1 MiB buffer.
struct IndexFileSink {
    private(set) var buffer: [UInt8] = []
    let file: FileDescriptor?

    init(file: FileDescriptor? = nil) {
        self.file = file
        if file != nil { buffer.reserveCapacity(1 << 20 + 4096) }
    }

    mutating func append<Bytes: Collection>(_ bytes: Bytes) throws(SystemError) where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        if let file, buffer.count >= 1 << 20 {
            try file.writeAll(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Appends `line` and a newline.
    mutating func appendLine(_ line: ArraySlice<UInt8>) throws(SystemError) {
        buffer.append(contentsOf: line)
        buffer.append(10)
        if let file, buffer.count >= 1 << 20 {
            try file.writeAll(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    mutating func flush() throws(SystemError) {
        guard let file else { return }
        try file.writeAll(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
