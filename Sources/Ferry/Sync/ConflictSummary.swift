/// A record whose concurrent versions wait for resolution, as `ferry conflicts` lists it.
public struct ConflictSummary: Sendable {
    /// One of the concurrent versions.
    public struct Version: Sendable {
        public var identity: ChangeIdentity
        public var timestamp: HybridTimestamp
        public var isDelete: Bool
        /// The conflict file of a losing put, relative to the store; `nil` for the winner.
        public var file: String?
    }

    public var key: RecordKey
    /// The version shown as the record.
    public var winner: Version
    /// The versions that lost and differ from the winner.
    public var losers: [Version]
}
