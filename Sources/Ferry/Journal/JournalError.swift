/// What can go wrong reading or writing a journal. Every case names where: the segment file
/// and, for a line, its 1-based line number within that segment.
public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A line that is not a well-formed journal entry.
    case malformedEntry(segment: String, line: Int, reason: String)
    /// An entry whose `seq` is not the one expected at its place.
    case sequenceGap(segment: String, line: Int, expected: UInt64, found: UInt64)
    /// The requested position is past the journal's end.
    case positionOutOfRange(UInt64, head: UInt64)
    /// A segment file that should exist is missing.
    case missingSegment(String)
    /// A system call failed.
    case io(SystemError)
    /// `journal/start.json` (where a compacted journal starts) cannot be read.
    case damagedStart(reason: String)
    /// The entry at this position was moved to an archive by `ferry compact` and is not kept.
    case archived(UInt64, first: UInt64)
    /// An archive's manifest, or an archived segment, cannot be read or does not check.
    case damagedArchive(reason: String)

    public var description: String {
        switch self {
        case .malformedEntry(let segment, let line, let reason):
            return "\(segment):\(line): malformed journal entry: \(reason)"
        case .sequenceGap(let segment, let line, let expected, let found):
            return "\(segment):\(line): expected seq \(expected), found \(found)"
        case .positionOutOfRange(let position, let head):
            return "journal position \(position) is past the end (\(head))"
        case .missingSegment(let segment):
            return "journal segment \(segment) is missing"
        case .io(let error):
            return error.description
        case .damagedStart(let reason):
            return "journal/start.json is damaged: \(reason)"
        case .archived(let position, let first):
            return "journal position \(position) is archived (the live journal starts at \(first))"
        case .damagedArchive(let reason):
            return "archive: \(reason)"

        }
    }
}
