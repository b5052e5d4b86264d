/// The records one part of an import read and wrote, so that a streamed import can prove that
/// its parts do not depend on each other (see ``ImportTouchLedger``).
///
/// ``ImportBatch`` fills it in as it reads the store; the keys it writes are its
/// ``ImportBatch/order``. It is a class so that the batch's non-mutating reads can record too.
final class ImportTouches {
    /// The stored records read: their state, content hash or document (whether or not they exist).
    var reads: Set<RecordKey> = []
    /// The records written: inserted, changed or deleted (or planned so, and found unchanged).
    var writes: [RecordKey] = []
    /// The records the input named that were left unchanged and not written.
    var unchanged: [RecordKey] = []
    /// Entities every live record of which was read (by the one-batch import's prefetch).
    var entitiesReadWhole: Set<EntityName> = []
    /// The children of derived to-manys read: one parent's through one member each.
    var backLinkReads: Set<BackLinkIndex.Bucket> = []
    /// The buckets of children the writes change: a child's parent before and after.
    var backLinkWrites: [BackLinkIndex.Bucket] = []

    init() {}
}
