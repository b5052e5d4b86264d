/// One subscriber of a change feed, as the ``ChangeFeedHub``'s loop holds it: where its events
/// have reached, and the frames the socket has not taken yet.
///
/// ```swift
/// var subscriber = FeedSubscriber(socket: socket, store: name, from: resumed, maximumEventsBehind: 64)
/// subscriber.advance(to: head, now: .now)   // queues "changes" after `resumed`
/// switch subscriber.flush() { case .blocked: /* wait until writable */ … }
/// ```
///
/// Memory stays bounded whatever the client does: an idle one holds no frame; one whose socket
/// is full holds at most ``maximumEventsBehind`` events, then they are replaced by one `pull`
/// covering all of them, after which nothing more is queued and the connection closes once the
/// pull is out.
struct FeedSubscriber {
    /// What ``flush()`` got done.
    enum FlushResult: Equatable {
        /// Everything queued was written.
        case sent
        /// The socket is full: wait until it is writable.
        case blocked
        /// The last frame (a `pull`) is out: close.
        case finished
        /// The client is gone.
        case failed
    }

    /// A frame on its way: an event, or a keepalive comment (`event` is `nil`).
    private struct Frame {
        var bytes: [UInt8]
        var event: FeedEvent?
    }

    let socket: Socket
    let store: StoreName
    /// How many events may wait for the socket before they become one `pull`.
    let maximumEventsBehind: Int
    /// Where the queued events reach.
    private(set) var delivered: FeedPosition
    /// A `pull` went in: nothing more is queued, and the connection closes once it is out.
    private(set) var closing = false
    /// Since when frames wait for the socket; `nil` when nothing waits.
    private(set) var waitingSince: ContinuousClock.Instant?
    private var outbox: [Frame] = []
    /// Bytes of the first frame already written.
    private var sentOfFirst = 0

    init(socket: Socket, store: StoreName, from position: FeedPosition, maximumEventsBehind: Int) {
        self.socket = socket
        self.store = store
        self.delivered = position
        self.maximumEventsBehind = max(1, maximumEventsBehind)
    }

    /// Queues a `changes` event when the journal's head is past what was delivered; an older
    /// head (read before this subscriber came) is ignored.
    mutating func advance(to head: FeedPosition, now: ContinuousClock.Instant) {
        guard head.sequence > delivered.sequence else { return }
        queue(FeedEvent(after: delivered.sequence, position: head), now: now)
    }

    /// Queues an event, or, when too many wait already, replaces the waiting ones with one
    /// `pull` that covers them all and the new one.
    mutating func queue(_ event: FeedEvent, now: ContinuousClock.Instant) {
        guard !closing else { return }
        let waiting = outbox.lazy.filter { $0.event != nil }.count
        if waiting >= maximumEventsBehind {
            // A frame partly written must be finished, or the stream would be cut mid-event.
            let kept = sentOfFirst > 0 ? 1 : 0
            let after = outbox[kept...].lazy.compactMap(\.event).first?.after ?? event.after
            outbox.removeSubrange(kept...)
            let pull = FeedEvent(kind: .pull, after: after, position: event.position, reason: .behind)
            outbox.append(Frame(bytes: pull.frame, event: pull))
            closing = true
        } else {
            outbox.append(Frame(bytes: event.frame, event: event))
        }
        delivered = event.position
        if waitingSince == nil { waitingSince = now }
    }

    /// Queues a keepalive comment, unless frames wait already (the connection is not idle then).
    mutating func keepAlive(now: ContinuousClock.Instant) {
        guard outbox.isEmpty, !closing else { return }
        outbox.append(Frame(bytes: FeedEvent.keepalive, event: nil))
        waitingSince = now
    }

    /// Writes what the socket takes now, without waiting.
    mutating func flush() -> FlushResult {
        while let first = outbox.first {
            let offset = sentOfFirst
            let written: Result<Int, SystemError> = first.bytes.withUnsafeBytes { buffer in
                do throws(SystemError) {
                    return .success(try socket.sendWithoutWaiting(UnsafeRawBufferPointer(rebasing: buffer[offset...])))
                } catch { return .failure(error) }
            }
            guard case .success(let count) = written else { return .failed }
            if count == 0 { return .blocked }
            sentOfFirst += count
            if sentOfFirst == first.bytes.count {
                outbox.removeFirst()
                sentOfFirst = 0
            }
        }
        waitingSince = nil
        return closing ? .finished : .sent
    }
}
