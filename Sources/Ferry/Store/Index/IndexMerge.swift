import Foundation

/// A new index image being written on another thread while the store goes on writing.
///
/// During a long run of writes the store merges the records changed in memory into a new
/// `.ferry/index` every so often, so memory stays bounded. Writing it means reading the old
/// image and encoding every changed record, which costs about as much again as the writes
/// since the last merge. On a thread of its own it overlaps those writes instead.
///
/// The merge writes the index as it was when the merge started (``frozen``) into a staging
/// file; ``Store/finishIndexMerge()`` then swaps it in and keeps in memory only the records
/// changed since. The frozen index reads the image and delta through descriptors of its own
/// (``RecordTable/reopened()``), so the two threads share no mutable state.
final class IndexMerge: @unchecked Sendable {
    /// The index the new image describes.
    let frozen: StoreIndex
    /// Where the new image is written before it is swapped in.
    let stagingPath: String
    /// What the merge writes: a whole image for `.ferry/index`, a new delta (the old delta's
    /// lines, the spill's and the states handed over) for `.ferry/index-delta`, or a new spill
    /// (see ``Store/mergeLevel(_:)``).
    let level: IndexFileLevel
    private let condition = NSCondition()
    private var outcome: Result<Void, SystemError>?

    /// Starts writing `frozen` to `stagingPath` on a new thread: a whole image, a delta on
    /// top of the frozen index's image, or a spill on top of its delta.
    init(frozen: StoreIndex, stagingPath: String, level: IndexFileLevel = .image) {
        self.frozen = frozen
        self.stagingPath = stagingPath
        self.level = level
        let thread = Thread { [self] in
            let result = Result { () throws(SystemError) in try frozen.writeFile(level, toFileAt: stagingPath) }
            condition.lock()
            outcome = result
            condition.broadcast()
            condition.unlock()
        }
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Whether the image is written (or failed).
    var isDone: Bool {
        condition.lock()
        defer { condition.unlock() }
        return outcome != nil
    }

    /// Waits until the image is written; its outcome.
    func wait() -> Result<Void, SystemError> {
        condition.lock()
        defer { condition.unlock() }
        while outcome == nil { condition.wait() }
        return outcome ?? .success(())
    }
}
