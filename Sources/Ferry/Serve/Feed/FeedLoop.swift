import Foundation

/// The thread of a ``ChangeFeedHub``: it owns the subscribers, the stores they follow and the
/// kernel's word on their journals, and is the only code that touches them.
final class FeedLoop {
    /// A store with subscribers: its journal folder, its head as last read, and whether a read
    /// is under way (another is needed when the journal grew meanwhile).
    private struct Topic {
        var journal: String
        var subscribers: Set<Int32> = []
        var reading = false
        var readAgain = false
    }

    private let hub: ChangeFeedHub
    private let doorbell: WakeupPipe
    private let events: EventPoll
    private let journals: DirectoryEvents?
    private var subscribers: [Int32: FeedSubscriber] = [:]
    private var topics: [StoreName: Topic] = [:]
    /// The topic of each watched journal folder.
    private var topicByJournal: [String: StoreName] = [:]
    /// Subscribers whose socket is full: the wait includes room to write for them.
    private var waitingForRoom: Set<Int32> = []
    private let clock = ContinuousClock()
    private var discard = [UInt8](repeating: 0, count: 4096)

    init(hub: ChangeFeedHub, doorbell: WakeupPipe) throws(SystemError) {
        self.hub = hub
        self.doorbell = doorbell
        events = try EventPoll()
        // Without inotify (other platforms for now), the heartbeat reads heads again instead.
        do throws(SystemError) { journals = try DirectoryEvents() } catch { journals = nil }
        try events.add(doorbell.readDescriptor, interest: .readable)
        if let journals { try events.add(journals.descriptor, interest: .readable) }
    }

    /// Serves until the hub stops; closes every subscriber on the way out.
    func run() throws(SystemError) {
        defer {
            for fd in Array(subscribers.keys) { drop(fd) }
        }
        var nextBeat = clock.now.advanced(by: hub.configuration.heartbeatInterval)
        while true {
            let ready = try events.wait(timeout: clock.now.duration(to: nextBeat))
            for readiness in ready {
                if readiness.descriptor == doorbell.readDescriptor {
                    doorbell.reset()
                    let (messages, stopping) = hub.takeInbox()
                    if stopping { return }
                    for message in messages { handle(message) }
                } else if let journals, readiness.descriptor == journals.descriptor {
                    journalsChanged(journals)
                } else {
                    serve(readiness)
                }
            }
            if clock.now >= nextBeat {
                heartbeat()
                nextBeat = clock.now.advanced(by: hub.configuration.heartbeatInterval)
            }
        }
    }

    private func handle(_ message: ChangeFeedHub.Message) {
        switch message {
        case .adopt(let socket, let store, let journal, let position, let head, let unknownPosition):
            adopt(socket, store: store, journal: journal, from: position, head: head, unknownPosition: unknownPosition)
        case .head(let store, let head):
            guard var topic = topics[store] else { return }
            topic.reading = false
            let again = topic.readAgain
            topic.readAgain = false
            topics[store] = topic
            if let head {
                for fd in topic.subscribers {
                    guard var subscriber = subscribers[fd] else { continue }
                    let wasClosing = subscriber.closing
                    subscriber.advance(to: head, now: clock.now)
                    subscribers[fd] = subscriber
                    if subscriber.closing && !wasClosing { hub.toldToPull(store) }
                    flush(fd)
                }
                hub.announced(store, through: head.sequence)
            }
            if again { readHead(of: store) }
        }
    }

    private func adopt(
        _ socket: Socket, store: StoreName, journal: String, from position: FeedPosition, head: FeedPosition, unknownPosition: Bool
    ) {
        let fd = socket.rawValue
        do throws(SystemError) {
            if let bytes = hub.configuration.sendBufferBytes { try socket.setSendBufferSize(bytes) }
            try events.add(fd, interest: .readable)
        } catch {
            hub.log("feed: cannot follow a subscriber of \(store.rawValue) (\(error)); closed")
            socket.close()
            hub.subscribersClosed(1)
            return
        }
        if topics[store] == nil {
            // Watched before the head is read again below, so no commit falls in between.
            do throws(SystemError) { _ = try journals?.watch(journal, modifications: true) } catch {
                hub.log("feed: cannot watch \(journal) (\(error)); its subscribers hear of changes at each heartbeat")
            }
            topics[store] = Topic(journal: journal)
            topicByJournal[journal] = store
        }
        topics[store]?.subscribers.insert(fd)
        var subscriber = FeedSubscriber(
            socket: socket, store: store, from: unknownPosition ? head : position,
            maximumEventsBehind: hub.configuration.maximumEventsBehind)
        if unknownPosition {
            subscriber.queue(FeedEvent(kind: .pull, after: 0, position: head, reason: .unknownPosition), now: clock.now)
        } else {
            subscriber.advance(to: head, now: clock.now)
        }
        subscribers[fd] = subscriber
        flush(fd)
        readHead(of: store)
    }

    /// Reads of journals that grew: the head of each store concerned is read again.
    private func journalsChanged(_ journals: DirectoryEvents) {
        let changed: [DirectoryEvents.Event]
        do { changed = try journals.read(timeout: .zero, wakeup: nil) } catch {
            hub.log("feed: reading the journals' events failed (\(error))")
            return
        }
        var stores: Set<StoreName> = []
        for event in changed {
            if event.kind == .overflow {
                stores.formUnion(topics.keys)
                continue
            }
            let folder = String(event.path[..<(event.path.lastIndex(of: "/") ?? event.path.endIndex)])
            if let store = topicByJournal[folder] { stores.insert(store) }
        }
        for store in stores where topics[store]?.subscribers.isEmpty == false { readHead(of: store) }
    }

    /// Has the store's head read off this thread, one read at a time per store.
    private func readHead(of store: StoreName) {
        guard var topic = topics[store] else { return }
        if topic.reading {
            topic.readAgain = true
        } else {
            topic.reading = true
            let hub = self.hub
            DispatchQueue.global().async { hub.post(.head(store, hub.readHead(store))) }
        }
        topics[store] = topic
    }

    /// A subscriber's socket is ready: its client left, sent something (read and ignored), or
    /// has room again.
    private func serve(_ readiness: EventPoll.Readiness) {
        let fd = readiness.descriptor
        guard let subscriber = subscribers[fd] else { return }
        if readiness.readable {
            let read: Result<Int?, SystemError> = discard.withUnsafeMutableBytes { buffer in
                do throws(SystemError) { return .success(try subscriber.socket.receiveWithoutWaiting(into: buffer)) } catch {
                    return .failure(error)
                }
            }
            // The end of the stream, or a failure: the client is gone.
            if case .success(0) = read { return drop(fd) }
            if case .failure = read { return drop(fd) }
        }
        if readiness.hangUp { return drop(fd) }
        if readiness.writable { flush(fd) }
    }

    /// Writes what a subscriber's socket takes, and waits for room when it is full.
    private func flush(_ fd: Int32) {
        guard var subscriber = subscribers[fd] else { return }
        let result = subscriber.flush()
        subscribers[fd] = subscriber
        switch result {
        case .sent:
            if waitingForRoom.remove(fd) != nil { try? events.modify(fd, interest: .readable) }
        case .blocked:
            if waitingForRoom.insert(fd).inserted { try? events.modify(fd, interest: [.readable, .writable]) }
        case .finished, .failed:
            drop(fd)
        }
    }

    /// A keepalive to every idle subscriber; one that left its bytes unread too long is closed.
    private func heartbeat() {
        let now = clock.now
        let limit = hub.configuration.writeTimeout
        for (fd, var subscriber) in subscribers {
            if let since = subscriber.waitingSince, since.duration(to: now) > limit {
                drop(fd)
                continue
            }
            subscriber.keepAlive(now: now)
            subscribers[fd] = subscriber
            flush(fd)
        }
        // Every store's head, watched or not: a commit whose kernel event was read before
        // the commit was visible (or lost) is announced a heartbeat late, never not at all.
        for (store, topic) in topics where !topic.subscribers.isEmpty { readHead(of: store) }
    }

    private func drop(_ fd: Int32) {
        guard let subscriber = subscribers.removeValue(forKey: fd) else { return }
        events.remove(fd)
        waitingForRoom.remove(fd)
        subscriber.socket.shutdown(.readWrite)
        subscriber.socket.close()
        topics[subscriber.store]?.subscribers.remove(fd)
        hub.subscribersClosed(1)
    }
}
