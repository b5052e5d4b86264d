/// A consumer's side of a ``HandEditMonitor``: asks it which record files may have changed
/// since the last `status` or `commit`, and remembers what that one found
/// (``HandEditBaseline``). Its caller holds the store's write lock.
///
/// ```swift
/// let query = HandEditMonitorQuery(layout: store.layout)
/// switch query.ask(journal: head) {
/// case .records(let keys, let point): /* examine those files only, then */ query.remember(status, at: point, journal: head)
/// case .unknown(let reason, let point): /* scan, then */ if let point { query.remember(status, at: point, journal: head) }
/// }
/// ```
///
/// The answer is a list only when every step holds: a state is published, its pid is alive,
/// it answers a cookie dropped now within ``answerTimeout`` (so it has heard of every change
/// made before now), its generation is the one the last consumer remembered, and nothing but
/// record files changed under `records/`. Anything else is `unknown`, and the caller scans:
/// never a wrong answer, at worst a slow one.
struct HandEditMonitorQuery {
    /// Where a consumer is in the monitor's publishes: what it remembers applies from there.
    struct Point: Sendable, Equatable {
        var generation: HandEditMonitorState.Generation
        var sequence: UInt64
        var pid: Int32
        /// The baseline the answer started from, when the monitor saw nothing touched since it:
        /// a status that leaves the same files unsettled, the journal where it was, keeps it.
        var unchangedBaseline: HandEditBaseline?
    }

    enum Answer: Sendable, Equatable {
        /// Only the files of these records may differ from the index.
        case records([RecordKey], at: Point)
        /// The monitor cannot tell (`reason`); after a scan, remember it at `point` if given.
        case unknown(reason: String, at: Point?)
    }

    /// How long a consumer waits for the monitor to answer its cookie before it scans.
    static let answerTimeout: Duration = .milliseconds(500)
    /// The most unsettled records a baseline keeps; past it the next consumer scans.
    static let unsettledLimit = 50_000

    let layout: StoreLayout

    /// Asks the monitor (see the type's documentation for when the answer is a list).
    /// - Parameter journal: the store's journal head now.
    func ask(journal: HandEditBaseline.Journal) -> Answer {
        guard let published = HandEditMonitorState.read(at: layout.handEditMonitorState) else {
            return .unknown(reason: "no watcher is running for this store ('ferry watch' starts one)", at: nil)
        }
        guard FileSystem.processIsAlive(published.pid) else {
            return .unknown(reason: "the store's watcher (pid \(published.pid)) is not running", at: nil)
        }
        let baseline = HandEditBaseline.read(at: layout.handEditBaseline)
        let answered: HandEditMonitorState
        switch waitForAnswer(cookie: cookieName(baseline: baseline)) {
        case .answered(let state):
            answered = state
        case .notAnswered:
            return .unknown(reason: "the store's watcher (pid \(published.pid)) did not answer within \(Self.answerTimeout)", at: nil)
        case .askedByItself:
            return .unknown(reason: "asked on the store's watcher's own thread, which cannot answer while it waits", at: nil)
        }
        let point = Point(generation: answered.generation, sequence: answered.sequence, pid: answered.pid)
        guard let baseline else {
            return .unknown(
                reason: "no status since the store's watcher (pid \(answered.pid)) started, or the last one found files that are not records",
                at: point)
        }
        guard baseline.generation == answered.generation else {
            let why = answered.restartReason.map { "the store's watcher lost track (\($0))" }
                ?? "the store's watcher (pid \(answered.pid)) started after the last status"
            return .unknown(reason: why, at: point)
        }
        guard baseline.journal.mayLeadTo(journal) else {
            return .unknown(reason: "the journal is not the one the last status saw (restored from a copy?)", at: point)
        }
        guard answered.otherFilesChangedAt <= baseline.sequence else {
            return .unknown(reason: "files that are not record files changed under records/", at: point)
        }
        let touched = answered.keys(touchedAfter: baseline.sequence)
        var keys = baseline.unsettled
        keys.formUnion(touched)
        var answer = point
        if touched.isEmpty { answer.unchangedBaseline = baseline }
        return .records(keys.sorted(), at: answer)
    }

    /// Remembers what a status found at `point`, for the next consumer; forgets instead when
    /// a problem names no record (a stray file, which only a scan finds again) or too many
    /// records are unsettled. Best effort: a baseline that cannot be written costs the next
    /// consumer a scan, never a wrong answer.
    func remember(_ status: StoreStatus, at point: Point, journal: HandEditBaseline.Journal) {
        var unsettled = Set(status.edits.map(\.key))
        for problem in status.problems {
            guard let key = recordKey(ofRelativePath: problem.path) else {
                forget()
                return
            }
            unsettled.insert(key)
        }
        guard unsettled.count <= Self.unsettledLimit else {
            forget()
            return
        }
        // Nothing touched, nothing journaled, the same files unsettled: the baseline says it
        // all already (a no-op sync writes nothing here).
        if let kept = point.unchangedBaseline, kept.generation == point.generation, kept.unsettled == unsettled, kept.journal == journal {
            return
        }
        let baseline = HandEditBaseline(generation: point.generation, sequence: point.sequence, journal: journal, unsettled: unsettled)
        do {
            _ = try FileSystem.writeFileAtomically(layout.handEditBaseline, baseline.jsonValue.canonicalBytes(), durable: false)
        } catch {
            forget()
        }
    }

    /// Removes the baseline: the next consumer scans.
    private func forget() {
        try? FileSystem.removeFile(layout.handEditBaseline)
    }

    /// `<random>.<generation>.<sequence>` when the baseline is of a generation (the monitor
    /// may forget the keys touched up to it), else `<random>`.
    private func cookieName(baseline: HandEditBaseline?) -> String {
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        guard let baseline else { return random }
        return "\(random).\(baseline.generation.rawValue).\(baseline.sequence)"
    }

    /// What came of a cookie.
    private enum CookieWait {
        /// A published state names it: the monitor has heard of every change made before it.
        case answered(HandEditMonitorState)
        /// None did in time, or the cookie could not be made.
        case notAnswered
        /// The monitor runs in this process and the asker is its own publishing thread.
        case askedByItself
    }

    /// Drops the cookie and waits until a published state names it: on the monitor itself
    /// when it runs in this process (``RunningHandEditMonitors``), else on its doorbell
    /// (``HandEditMonitorDoorbell``), else on the kernel's word that the state file was replaced.
    private func waitForAnswer(cookie: String) -> CookieWait {
        let cookiePath = layout.handEditCookies + "/" + cookie
        if let monitor = RunningHandEditMonitors.shared.monitor(publishingIn: layout.handEditMonitor) {
            guard !monitor.isPublishingThread else { return .askedByItself }
            guard (try? FileSystem.createFileIfAbsent(cookiePath, [])) != nil else { return .notAnswered }
            defer { try? FileSystem.removeFile(cookiePath) }
            return monitor.state(naming: cookie, within: Self.answerTimeout).map { .answered($0) } ?? .notAnswered
        }
        if let bell = HandEditMonitorDoorbell.listen(in: layout) {
            return waitForAnswer(cookie: cookie, at: cookiePath, ringing: bell)
        }
        // A monitor without a doorbell. Watch first, so that an answer published right after
        // the cookie is not missed. (The close of this inotify instance waits for the kernel's
        // grace period, which is why monitors have a doorbell.)
        guard let events = try? DirectoryEvents(), (try? events.watch(layout.handEditMonitor)) == true,
            (try? FileSystem.createFileIfAbsent(cookiePath, [])) != nil
        else { return .notAnswered }
        defer { try? FileSystem.removeFile(cookiePath) }
        let deadline = ContinuousClock.now + Self.answerTimeout
        while true {
            if let state = HandEditMonitorState.read(at: layout.handEditMonitorState), state.cookies.contains(cookie) {
                return .answered(state)
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, (try? events.read(timeout: remaining, wakeup: nil)) != nil else { return .notAnswered }
        }
    }

    /// Waits for the answer on the monitor's doorbell, connected (`bell`) before the cookie is
    /// dropped: each connection is rung once, at the next publish, so after each ring the state
    /// is read again on a new connection, made before that read.
    private func waitForAnswer(cookie: String, at cookiePath: String, ringing bell: Socket) -> CookieWait {
        var bell = bell
        defer { bell.close() }
        guard (try? FileSystem.createFileIfAbsent(cookiePath, [])) != nil else { return .notAnswered }
        defer { try? FileSystem.removeFile(cookiePath) }
        let deadline = ContinuousClock.now + Self.answerTimeout
        while true {
            if let state = HandEditMonitorState.read(at: layout.handEditMonitorState), state.cookies.contains(cookie) {
                return .answered(state)
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, (try? Poll.waitForReadable([bell.rawValue], timeout: remaining))?.first == true,
                let next = HandEditMonitorDoorbell.listen(in: layout)
            else { return .notAnswered }
            bell.close()
            bell = next
        }
    }

    /// The record a path relative to the store names (`records/<Entity>/<file>`), if any.
    private func recordKey(ofRelativePath path: String) -> RecordKey? {
        let parts = path.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "records", let entity = try? EntityName(String(parts[1])),
            let id = RecordFileName.id(fromRelativePath: String(parts[2]))
        else { return nil }
        return RecordKey(entity: entity, id: id)
    }
}
