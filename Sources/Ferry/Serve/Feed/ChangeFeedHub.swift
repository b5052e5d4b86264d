import Foundation

/// The change feeds of `ferry serve`: every subscriber of every store, served by one thread
/// that waits on all their sockets at once (``EventPoll``: epoll on Linux), so an idle
/// subscriber costs a socket and a few hundred bytes, and no thread and no CPU.
///
/// ```swift
/// let feeds = ChangeFeedHub(readHead: { name in … }, log: { print($0) })
/// // in a handler, once the response head is sent:
/// HTTPResponse(headers: ["Content-Type": "text/event-stream"]) { socket in
///     feeds.adopt(socket, store: name, journal: layout.journal, from: position, head: head)
/// }
/// // on shutdown:
/// feeds.stop()
/// ```
///
/// The thread learns that a store's journal grew from the kernel (``DirectoryEvents`` on its
/// `journal/` folder, in the same wait), has the new head read off the thread (`readHead`,
/// which may wait for a writer's lock), then queues one `changes` event to each of the store's
/// subscribers and writes it without blocking. A subscriber whose socket stays full is sent
/// one `pull` instead of a backlog (``FeedSubscriber``); one that closes is dropped as the
/// kernel reports it. Every ``Configuration/heartbeatInterval`` a keepalive comment goes to
/// each subscriber, and one that has not taken its bytes for ``Configuration/writeTimeout``
/// is closed.
package final class ChangeFeedHub: @unchecked Sendable {
    /// The feed's limits and rhythm.
    package struct Configuration: Sendable {
        /// How often an idle subscriber hears `: keepalive` (proxies cut silent connections).
        package var heartbeatInterval: Duration = .seconds(15)
        /// The most subscribers at once, all stores together (`503` beyond).
        package var maximumSubscribers = 20_000
        /// How many events may wait for a subscriber's full socket before they become one `pull`.
        package var maximumEventsBehind = 64
        /// How long a subscriber may leave its bytes unread before it is closed.
        package var writeTimeout: Duration = .seconds(60)
        /// The kernel's send buffer for a subscriber's socket (`nil`: the system's); a small one
        /// makes a client that stops reading fall behind soon.
        package var sendBufferBytes: Int?

        package init() {}
    }

    /// What other threads hand the loop.
    enum Message {
        /// A subscriber: its socket, store, journal folder, where it resumes and the head read
        /// when it subscribed.
        case adopt(Socket, store: StoreName, journal: String, from: FeedPosition, head: FeedPosition, unknownPosition: Bool)
        /// A store's head, read off the loop (`nil` when it could not be read).
        case head(StoreName, FeedPosition?)
    }

    let configuration: Configuration
    /// Reads a store's current head; called off the loop's thread, for one store at a time.
    let readHead: @Sendable (StoreName) -> FeedPosition?
    let log: @Sendable (String) -> Void
    private let lock = NSLock()
    /// Rung when the inbox has messages or the hub stops; made with the loop.
    private var doorbell: WakeupPipe?
    private var inbox: [Message] = []
    private var stopping = false
    private var running: DispatchSemaphore?
    private var subscribers = 0
    private var toldToPull = 0
    private var announced: [StoreName: UInt64] = [:]

    /// Makes a hub; its thread starts with the first subscriber.
    /// - Parameters:
    ///   - configuration: limits and heartbeat.
    ///   - readHead: reads a store's journal head (it may block on the store's lock).
    ///   - log: operational messages.
    package init(
        configuration: Configuration = Configuration(), readHead: @escaping @Sendable (StoreName) -> FeedPosition?,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.readHead = readHead
        self.log = log
    }

    /// The number of subscribers now.
    package var count: Int { lock.withLock { subscribers } }

    /// Whether another subscriber fits.
    package var hasRoom: Bool { lock.withLock { !stopping && subscribers < configuration.maximumSubscribers } }

    /// Takes a subscriber's socket (its response head already sent); the hub closes it. A hub
    /// that is full or stopping closes it at once: the client sees the stream end and comes back.
    /// - Parameters:
    ///   - socket: the connection.
    ///   - store: the store it follows; `journal`, that store's journal folder.
    ///   - position: where the subscriber's events start (after `position`).
    ///   - head: the store's head when it subscribed.
    ///   - unknownPosition: `position` named an entry the store does not hold: the first event is a `pull`.
    package func adopt(
        _ socket: Socket, store: StoreName, journal: String, from position: FeedPosition, head: FeedPosition, unknownPosition: Bool
    ) {
        let accepted: Bool = lock.withLock {
            guard !stopping, subscribers < configuration.maximumSubscribers else { return false }
            if running == nil {
                let bell: WakeupPipe
                do throws(SystemError) { bell = try WakeupPipe() } catch {
                    log("feed: cannot start the subscriber loop (\(error))")
                    return false
                }
                doorbell = bell
                let finished = DispatchSemaphore(value: 0)
                running = finished
                let thread = Thread { [self] in
                    do throws(SystemError) {
                        try FeedLoop(hub: self, doorbell: bell).run()
                    } catch {
                        log("feed: the subscriber loop failed (\(error)); subscribers were closed")
                    }
                    // Ended: later subscribers are refused rather than left with no loop.
                    lock.withLock { stopping = true }
                    finished.signal()
                }
                thread.name = "ferry-feed"
                thread.stackSize = 512 * 1024
                thread.start()
            }
            subscribers += 1
            inbox.append(.adopt(socket, store: store, journal: journal, from: position, head: head, unknownPosition: unknownPosition))
            return true
        }
        if accepted {
            ring()
        } else {
            socket.shutdown(.readWrite)
            socket.close()
        }
    }

    /// Hands the loop a store's head read off its thread.
    func post(_ message: Message) {
        lock.withLock { inbox.append(message) }
        ring()
    }

    private func ring() {
        lock.withLock { doorbell }?.signal()
    }

    /// What the loop has to handle, taken; and whether the hub is stopping.
    func takeInbox() -> (messages: [Message], stopping: Bool) {
        lock.withLock {
            defer { inbox = [] }
            return (inbox, stopping)
        }
    }

    /// How many subscribers fell behind and were sent a `pull` instead of their events.
    package var subscribersToldToPull: Int { lock.withLock { toldToPull } }

    /// The latest journal position of `store` the loop has announced to its subscribers (0
    /// before any): what a commit waits for to be its own event.
    package func announcedPosition(of store: StoreName) -> UInt64 { lock.withLock { announced[store] ?? 0 } }

    /// Notes that the loop announced `store`'s head at `sequence`.
    func announced(_ store: StoreName, through sequence: UInt64) {
        lock.withLock { announced[store] = max(announced[store] ?? 0, sequence) }
    }

    /// Counts a subscriber that fell behind.
    func toldToPull(_ store: StoreName) {
        lock.withLock { toldToPull += 1 }
        log("feed: a subscriber of \(store.rawValue) fell \(configuration.maximumEventsBehind) events behind; sent it a pull")
    }

    /// Counts subscribers the loop closed.
    func subscribersClosed(_ count: Int) {
        guard count > 0 else { return }
        lock.withLock { subscribers -= count }
    }

    /// Closes every subscriber and ends the thread; returns once it has ended.
    package func stop() {
        let finished: DispatchSemaphore? = lock.withLock {
            stopping = true
            return running
        }
        ring()
        finished?.wait()
        // Subscribers adopted after the loop ended (none, once stopping is set) would be closed by adopt.
        lock.withLock { running = nil }
    }
}
