import Foundation

/// Follows a `ferry serve` store's change feed for a ``LiveSync`` and calls `wake` when the
/// server's journal grows, so the loop pulls at once instead of at its interval. It resumes
/// each reconnection from the last event (`Last-Event-ID`), says once when the server went away
/// and when it is back, reconnects with backoff (1, 2, 4 … 30 s), and gives up with one note on
/// a server without the feed (an older `ferry serve`), leaving the interval to do the work.
struct ServedFeedFollower {
    let feed: ServedChangeFeed
    let interval: Duration
    let wake: @Sendable () -> Void
    /// Told what the loop's events say: a note, or a line about the connection.
    let note: @Sendable (String) -> Void

    func start() -> Task<Void, Never> {
        let (feed, interval, wake, note) = (feed, interval, wake, note)
        return Task {
            var delay = 1.0
            var lastError: String?
            var lastEventID: String?
            while !Task.isCancelled {
                do {
                    let events = try await feed.events(after: lastEventID)
                    if lastError != nil { note("\(feed.url): the change feed is back") }
                    lastError = nil
                    delay = 1
                    // Connected: a sync now catches what came before the feed did.
                    wake()
                    for try await event in events {
                        lastEventID = event.position.eventID
                        LiveTrace.note("feed event \(event.position.eventID): waking the loop")
                        wake()
                    }
                } catch RemoteError.rejected(_, status: 404, _) {
                    note("\(feed.url) has no change feed (an older ferry serve?); the watch polls every \(Self.seconds(interval)) s")
                    return
                } catch {
                    let message = "\(error)"
                    if message != lastError { note("\(feed.url): the change feed went away (\(message)); reconnecting in \(Int(delay)) s (then less often)") }
                    lastError = message
                }
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                delay = min(delay * 2, 30)
            }
        }
    }

    /// `30` for 30 s, `2.5` for 2.5 s.
    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
}
