/// How a running ``HandEditMonitor`` tells consumers in other processes that it published: a
/// socket in its folder (`.ferry/watch/publishes`). A consumer connects before it drops its
/// cookie; at each publish the monitor takes every connection waiting and writes one byte to
/// each, then closes it. So a consumer learns of every publish after it connected, with no
/// polling and no inotify instance of its own (whose close waits for the kernel's fsnotify
/// grace period: milliseconds at best, the better part of a `ferry status` that takes 20).
///
/// ```swift
/// // the monitor, after each publish:
/// doorbell.ring()
/// // a consumer:
/// guard let bell = HandEditMonitorDoorbell.listen(in: layout) else { /* watch the folder */ }
/// // drop the cookie, then: read the state; not named yet? wait for `bell` readable, listen again
/// ```
///
/// One-shot connections keep the monitor's side simple: it owns nothing between publishes,
/// and a consumer that gave up costs it one failed write.
final class HandEditMonitorDoorbell {
    private let listener: Socket
    private let path: String

    /// Listens at the store's doorbell path, replacing a socket a dead monitor left (the caller
    /// holds the monitor's lock: no live monitor listens there).
    /// - Throws: ``SystemError`` when the socket cannot be made (a path too long for one):
    ///   consumers then watch the folder instead.
    init(layout: StoreLayout) throws(SystemError) {
        path = layout.handEditMonitorDoorbell
        try FileSystem.removeFile(path)
        listener = try Socket.listen(localPath: path)
    }

    /// Tells every consumer connected so far that a new state is published.
    func ring() {
        var signal: UInt8 = 1
        while let connection = try? listener.accept() {
            _ = withUnsafeBytes(of: &signal) { try? connection.0.sendWithoutWaiting($0) }
            connection.0.close()
        }
    }

    /// Stops listening and removes the socket.
    func close() {
        listener.close()
        try? FileSystem.removeFile(path)
    }

    /// A connection to the doorbell of the monitor of `layout`'s store, readable after its next
    /// publish; `nil` when none listens (a monitor from before the doorbell, or none at all).
    static func listen(in layout: StoreLayout) -> Socket? {
        try? Socket.connect(localPath: layout.handEditMonitorDoorbell)
    }
}
