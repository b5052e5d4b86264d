extension LiveSync {
    /// Why a round ran (a round may have several reasons: they gather while one runs).
    public enum Cause: String, Sendable, Hashable, CaseIterable {
        /// The first round, when the loop starts.
        case started
        /// The store's journal grew or its record files changed (a write, a hand edit).
        case storeChanged
        /// The peer changed: its folder's files, as the kernel reports them.
        case peerChanged
        /// ``LiveSync/wake()`` was called (a realtime feed, a push from a server, the app).
        case woken
        /// The interval passed, or a peer that is polled was due.
        case due
    }

    /// One round of a live sync, as ``LiveSync/events`` reports it.
    public struct Round: Sendable {
        /// What the sync did.
        public var report: SyncReport
        /// Why it ran.
        public var causes: Set<Cause>
        /// Whether the round before failed: its report is then worth saying even when nothing moved.
        public var afterError: Bool
        /// For a polled peer (an S3 hub), what an idle hour costs at this round's request
        /// count, when the round found nothing to exchange (up to date) and was not the first
        /// (``PollSchedule/requestsPerIdleHour(requestsPerRound:)``); `nil` otherwise.
        public var requestsPerIdleHour: Int?
    }

    /// What a live sync tells its app.
    public enum Event: Sendable {
        /// A round finished.
        case synced(Round)
        /// A round failed. Said once until the message changes (the peer may come back, and the
        /// loop goes on); a refusal that only the user can lift (a mass deletion) every time.
        case failed(any Error)
        /// Something worth a line that is not an error: how the loop watches, or what it falls back to.
        case note(String)
    }
}
