/// Splits a buffer into lines.
struct IndexLineReader {
    let bytes: [UInt8]
    var offset = 0
    var lineNumber = 0

    mutating func nextLine() -> ArraySlice<UInt8>? {
        guard offset < bytes.count else { return nil }
        let start = offset
        while offset < bytes.count && bytes[offset] != 10 { offset += 1 }
        let line = bytes[start..<offset]
        if offset < bytes.count { offset += 1 }
        lineNumber += 1
        return line
    }
}
