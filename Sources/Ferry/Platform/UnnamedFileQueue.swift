import Foundation

/// Makes files without names on a worker thread, a bounded number ahead of the caller, who
/// takes them in order and names each (``FileSystem/linkUnnamedFile(_:at:)``) when its turn
/// comes.
///
/// Creating a file is two halves of about equal cost: making the inode and writing its bytes,
/// and adding its name to the directory. Two threads adding names to one directory mostly wait
/// for each other (the directory is locked for each), but the first half needs no such lock.
/// So a worker makes the unnamed files while the caller names them, and a batch of new record
/// files takes about the time of the naming alone.
///
/// The files are invisible until named and vanish with the process, so making them ahead is
/// safe at any moment; at most `window` are open at once.
///
/// ```swift
/// let queue = UnnamedFileQueue(count: items.count) { index in
///     UnnamedFileQueue.Request(directory: directories[index], bytes: contents[index])
/// }
/// defer { queue.finish() }
/// for index in items.indices {
///     if case .made(let file) = queue.take(index) { /* link, then close */ }
/// }
/// ```
final class UnnamedFileQueue: @unchecked Sendable {
    /// What to make for one index.
    struct Request {
        /// The directory the file will be named in.
        var directory: String
        var bytes: [UInt8]
    }

    /// One unnamed file, open, with what the caller needs to record it.
    struct Made: Sendable {
        var file: FileDescriptor
        var status: FileStatus
        /// SHA-256 of the bytes written.
        var contentHash: SHA256Digest
    }

    /// What the worker did for one index.
    enum Outcome: Sendable {
        case made(Made)
        /// The file system has no unnamed files: write this one another way.
        case unsupported
        case failed(SystemError)
    }

    private let count: Int
    private let window: Int
    private let condition = NSCondition()
    /// Outcomes made and not taken yet, by index.
    private var ready: [Int: Outcome] = [:]
    /// The next index the caller will take; the worker stays within `window` of it.
    private var nextTaken = 0
    /// How many indexes the worker has made.
    private var produced = 0
    /// Whether a thread waits on `condition`: only then is it signalled.
    private var workerWaits = false
    private var callerWaits = false
    private var isFinished = false
    private var workerDone = false

    /// Starts the worker on `count` files; `request(index)` runs on the worker.
    init(count: Int, window: Int = 64, request: @escaping @Sendable (Int) -> Request) {
        self.count = count
        self.window = max(1, window)
        let thread = Thread { [self] in work(request) }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func work(_ request: (Int) -> Request) {
        var unsupported = false
        for index in 0..<count {
            condition.lock()
            while !isFinished && index - nextTaken >= window {
                workerWaits = true
                condition.wait()
                workerWaits = false
            }
            let stop = isFinished
            condition.unlock()
            if stop { break }
            let outcome: Outcome
            if unsupported {
                outcome = .unsupported
            } else {
                outcome = make(request(index))
                if case .unsupported = outcome { unsupported = true }
            }
            condition.lock()
            ready[index] = outcome
            produced = index + 1
            if callerWaits { condition.broadcast() }
            condition.unlock()
        }
        condition.lock()
        workerDone = true
        condition.broadcast()
        condition.unlock()
    }

    private func make(_ request: Request) -> Outcome {
        do {
            let made: (FileDescriptor, FileStatus)?
            do {
                made = try FileSystem.makeUnnamedFile(inDirectory: request.directory, request.bytes)
            } catch where error.isNotFound {
                try FileSystem.createDirectories(request.directory)
                made = try FileSystem.makeUnnamedFile(inDirectory: request.directory, request.bytes)
            }
            guard let (file, status) = made else { return .unsupported }
            return .made(Made(file: file, status: status, contentHash: SHA256.hash(request.bytes)))
        } catch {
            return .failed(error)
        }
    }

    /// The outcome for `index`, waiting for the worker if needed. Indexes must be taken in
    /// increasing order; skipped ones are closed by ``finish()``. The caller closes a made file.
    func take(_ index: Int) -> Outcome {
        condition.lock()
        defer { condition.unlock() }
        nextTaken = max(nextTaken, index + 1)
        // Wake a worker that waits for room only once half the window is free, so the two
        // threads do not trade places after every file.
        if workerWaits && produced - nextTaken <= window / 2 { condition.broadcast() }
        while ready[index] == nil && !workerDone {
            callerWaits = true
            condition.wait()
            callerWaits = false
        }
        return ready.removeValue(forKey: index) ?? .unsupported
    }

    /// Stops the worker, waits for it, and closes the files nobody took; returns how many.
    /// Call once, when done taking (also after an error).
    @discardableResult
    func finish() -> Int {
        condition.lock()
        isFinished = true
        condition.broadcast()
        while !workerDone { condition.wait() }
        let left = ready
        ready = [:]
        condition.unlock()
        var closed = 0
        for case .made(let made) in left.values {
            made.file.close()
            closed += 1
        }
        return closed
    }
}
