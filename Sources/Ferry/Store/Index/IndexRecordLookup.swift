/// Reads what audit queries need from the index image's sorted record lines (format in
/// ``IndexFile``) without decoding any record: `log --id` without an entity needs the
/// entities that have records, to look the id up in each, not 100,000 records in memory.
///
/// Record lines are `K<tab><entity><tab><encoded id><tab>…`, sorted by `<entity><tab><encoded
/// id>` as bytes, so each entity's records are one run of lines and the next entity starts at
/// the first line not below `<entity><tab><0xFF>`: a binary search with `pread`, one per entity.
///
/// It reads the file by path, so it checks that the file is still the image of `head` (the
/// one the store opened); records changed since (the delta file, this session's writes) are
/// the caller's to add.
enum IndexRecordLookup {
    /// The entities of the image's records, in order, or `nil` when the file cannot be read,
    /// is not the image of `head` with `recordCount` records, or a line is malformed.
    static func entities(inImageAt path: String, head: StoreHead, recordCount: Int) -> [EntityName]? {
        guard let file = try? FileDescriptor.open(path, .readOnly) else { return nil }
        return file.closeAfter { () -> [EntityName]? in
            guard let body = SortedLines(file: file, head: head, recordCount: recordCount) else { return nil }
            var entities: [EntityName] = []
            var position = body.start
            while position < body.end {
                guard let key = body.sortKey(ofLineAt: position), let tab = key.firstIndex(of: 9),
                    let entity = try? EntityName(String(decoding: key[..<tab], as: UTF8.self))
                else { return nil }
                if let last = entities.last, !last.rawValue.utf8.lexicographicallyPrecedes(key[..<tab]) { return nil }  // unsorted
                entities.append(entity)
                guard let next = body.firstLine(notBelow: Array(key[...tab]) + [0xFF], after: position) else { return nil }
                position = next
            }
            return entities
        }
    }

    /// The record lines of an open image file, between its header and its `E` line.
    private struct SortedLines {
        let file: FileDescriptor
        /// The offset of the first record line and the end of the last one.
        var start: Int64 = 0
        var end: Int64 = 0

        init?(file: FileDescriptor, head: StoreHead, recordCount: Int) {
            self.file = file
            guard let size = try? file.status().size else { return nil }
            let expectedStart = Array("\(IndexFileLevel.image.magic)\nH\t\(head.sequence)\t\(head.hash.hex)\t".utf8)
            // The header ends with the line `B`; conflict lines can make it long.
            var window = 65_536
            var headerEnd: Int?
            while headerEnd == nil {
                guard let bytes = try? file.read(at: 0, count: Int(min(Int64(window), size))),
                    bytes.count > expectedStart.count, bytes[0..<expectedStart.count].elementsEqual(expectedStart)
                else { return nil }
                headerEnd = IndexFileHeader.end(in: bytes)
                if headerEnd == nil {
                    guard Int64(bytes.count) < size, window < 1 << 26 else { return nil }
                    window *= 8
                }
            }
            let trailer = IndexFileHeader.trailer(recordCount: recordCount)
            guard let headerEnd, size >= Int64(headerEnd + trailer.count),
                (try? file.read(at: size - Int64(trailer.count), count: trailer.count)) == trailer
            else { return nil }
            start = Int64(headerEnd)
            end = size - Int64(trailer.count)
        }

        /// `<entity><tab><encoded id>` of the record line starting at `offset`.
        func sortKey(ofLineAt offset: Int64) -> ArraySlice<UInt8>? {
            var window = 1024
            while true {
                let count = Int(min(Int64(window), end - offset))
                guard count > 2, let bytes = try? file.read(at: offset, count: count),
                    bytes[0] == UInt8(ascii: "K"), bytes[1] == 9
                else { return nil }
                var tabs = 0
                for index in 2..<bytes.count {
                    if bytes[index] == 10 { return nil }
                    if bytes[index] == 9 {
                        tabs += 1
                        if tabs == 2 { return bytes[2..<index] }
                    }
                }
                guard count == window else { return nil }
                window *= 4
            }
        }

        /// The first line starting after `offset` (itself a line start) whose sort key is not
        /// below `target`, or ``end`` when there is none.
        func firstLine(notBelow target: [UInt8], after offset: Int64) -> Int64? {
            // Invariant: the line at `low` sorts below `target`; the answer is in (low, high].
            var low = offset
            var high = end
            while high - low > 16_384 {
                let middle = (low + high) / 2
                guard let start = lineStart(atOrAfter: middle) else { return nil }
                if start >= high { break }
                guard let key = sortKey(ofLineAt: start) else { return nil }
                if key.lexicographicallyPrecedes(target) { low = start } else { high = start }
            }
            guard let bytes = try? file.read(at: low, count: Int(high - low)) else { return nil }
            var index = bytes.firstIndex(of: 10).map { $0 + 1 } ?? bytes.count
            while index < bytes.count {
                let lineEnd = bytes[index...].firstIndex(of: 10) ?? bytes.count
                guard let key = sortKey(bytes[index..<lineEnd]) else { return nil }
                if !key.lexicographicallyPrecedes(target) { return low + Int64(index) }
                index = lineEnd + 1
            }
            return high
        }

        private func sortKey(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
            guard line.count > 2, line.first == UInt8(ascii: "K"), line[line.startIndex + 1] == 9 else { return nil }
            let keyStart = line.startIndex + 2
            guard let firstTab = line[keyStart...].firstIndex(of: 9) else { return nil }
            let secondTab = line[(firstTab + 1)...].firstIndex(of: 9) ?? line.endIndex
            return line[keyStart..<secondTab]
        }

        /// The start of the first line beginning at or after `offset`, or ``end``.
        private func lineStart(atOrAfter offset: Int64) -> Int64? {
            var window = 4096
            let from = offset - 1
            while true {
                let count = Int(min(Int64(window), end - from))
                guard count > 0 else { return end }
                guard let bytes = try? file.read(at: from, count: count) else { return nil }
                if let newline = bytes.firstIndex(of: 10) { return from + Int64(newline) + 1 }
                guard count == window else { return end }
                window *= 4
            }
        }
    }
}
