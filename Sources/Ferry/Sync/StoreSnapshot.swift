/// A store's state as of one journal position, offered to a replica that joins it: the journal
/// positions of every record's current versions (tombstones included), read a page at a time
/// by ``Store/snapshotChanges(_:limit:)``.
///
/// Only positions are held (8 bytes per version), so a store of a million records offers its
/// state in a few megabytes; the changes themselves are read from the journal, in journal order,
/// as they are sent. The journal is append-only, so the entries stay where they are even if
/// the store is written meanwhile: the state is exactly the one at ``offer``'s position.
public struct StoreSnapshot: Sendable {
    /// What is offered: its id is the hash of the journal entry at its position.
    public let offer: SnapshotOffer
    /// The journal positions of the current versions, ascending.
    let sequences: [UInt64]
    /// How many of them have been read.
    public internal(set) var delivered = 0
    /// The digest of the versions read so far, in order from the first (``StateStatement``),
    /// while every page was read after the one before; what ``Store/statement(of:)`` signs.
    var digestSoFar = SHA256()
    var digested = 0

    init(offer: SnapshotOffer, sequences: [UInt64]) {
        self.offer = offer
        self.sequences = sequences
    }

    /// Whether every version has been read.
    public var isFinished: Bool { delivered >= sequences.count }
}
