/// Which index file is written or read: the image, the delta over it, or a spill over the
/// delta (format in ``IndexFile``).
enum IndexFileLevel: Sendable {
    /// `.ferry/index`: every record, the index's full image.
    case image
    /// `.ferry/index-delta`: the records changed since the image (the spill's among them).
    case delta
    /// A process's own file of records changed since the delta (see ``RecordTable/spill``):
    /// the old spill's lines and the states in memory, in the delta's form.
    case spill

    /// The file's first line: it names the level's layout and its version.
    var magic: String {
        switch self {
        case .image: "ferry-index\t3"
        case .delta, .spill: "ferry-index-delta\t2"
        }
    }
}
