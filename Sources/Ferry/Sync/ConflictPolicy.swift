/// What a sync does with concurrent versions of a record that differ.
///
/// Whatever the policy, every replica picks the same winner: a put beats a delete, then the
/// highest clock stamp, then the higher replica id.
public enum ConflictPolicy: String, Sendable, CaseIterable {
    /// The winner becomes the record file; each loser is kept under `conflicts/<Entity>/`
    /// until someone runs `ferry resolve`. The default.
    case keepBoth = "keep-both"
    /// The winner is written as a resolution; losers stay only in the journal.
    case lastWriterWins = "lww"
    /// Changes to different fields are combined against the common ancestor; the same field
    /// changed on both sides falls back to keep-both for that record.
    case merge = "merge"
}
