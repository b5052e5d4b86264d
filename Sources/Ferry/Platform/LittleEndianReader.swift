extension [UInt8] {
    /// Appends `value`'s bytes, least significant first.
    mutating func appendLittleEndian<Value: FixedWidthInteger>(_ value: Value) {
        var remaining = value.littleEndian
        Swift.withUnsafeBytes(of: &remaining) { append(contentsOf: $0) }
    }
}

/// Reads integers written by ``Swift/Array/appendLittleEndian(_:)`` from the front of a buffer
/// Ferry wrote itself (short reads give zeros, never a crash).
struct LittleEndianReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private mutating func integer<Value: FixedWidthInteger>(_: Value.Type) -> Value {
        let size = MemoryLayout<Value>.size
        guard bytes.count - offset >= size else {
            offset = bytes.count
            return 0
        }
        var value: Value = 0
        for index in 0..<size { value |= Value(truncatingIfNeeded: bytes[offset + index]) << (8 * index) }
        offset += size
        return value
    }

    mutating func byte() -> UInt8 { integer(UInt8.self) }
    mutating func uint32() -> UInt32 { integer(UInt32.self) }
    mutating func uint64() -> UInt64 { integer(UInt64.self) }

    /// The rest of the buffer as UTF-8 text.
    mutating func rest() -> String {
        defer { offset = bytes.count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset...]), as: UTF8.self)
    }
}
