import Foundation

/// Makes files without names ahead of time and names them once the caller says so, on a
/// worker thread, so that a batch of new record files costs the caller little more than the
/// wait for the last name.
///
/// Creating a file is two halves of about equal cost: making the inode and writing its bytes,
/// and adding its name to the directory. The first half needs no directory lock and may happen
/// before the caller knows the file may appear (before its journal entries are durable): an
/// unnamed file is invisible and vanishes with the process. The second half is serialized by
/// the directory's lock however many threads try, so one thread does it.
///
/// The worker makes files in the order they are added (``add(contentsOf:)``), at most
/// `window` ahead of the naming, which starts when the caller hands over the names
/// (``link(_:)``, or ``link(_:once:)`` to have another thread make them durable first). While
/// the caller waits for the names (``linkResults()``), it makes files too; for a batch much
/// larger than the window, ``addMaker()`` adds a thread that only makes them, so the worker
/// only names.
///
/// ```swift
/// let queue = UnnamedFileQueue()
/// defer { queue.finish() }
/// let indexes = queue.add(contentsOf: items.map { item in { (item.directory, item.contents) } })
/// // … make the files' existence durable elsewhere (a journal), then:
/// queue.link(zip(indexes, items).map { ($0, $1.path) })   // or link(_:once:) with the sync
/// let outcomes = queue.linkResults()
/// for index in indexes { /* outcomes[index]: record it, or write the file another way */ }
/// ```
final class UnnamedFileQueue: @unchecked Sendable {
    /// What to make for one index, computed by the thread that makes it: the directory the
    /// file will be named in, and its bytes.
    typealias Request = @Sendable () -> (directory: String, bytes: [UInt8])

    /// A file named by the worker: its status and the SHA-256 of its bytes.
    struct Linked: Sendable {
        var status: FileStatus
        var contentHash: SHA256Digest
    }

    /// What became of one file the caller asked to name.
    enum Outcome: Sendable {
        case linked(Linked)
        /// Unnamed files are unavailable here, or the name was taken: write this file another way.
        case notLinked
        case failed(SystemError)
    }

    /// What became of each file handed to ``link(_:)``, by index: a table as long as the
    /// queue, not a dictionary, since a batch names tens of thousands.
    struct Outcomes: Sendable, CustomStringConvertible {
        private var byIndex: [Outcome?] = []
        /// How many files have an outcome.
        private(set) var count = 0

        init(count: Int = 0) {
            byIndex = Array(repeating: nil, count: count)
        }

        var isEmpty: Bool { count == 0 }

        /// The outcome of file `index`; `nil` when it was not to be named (or is out of range).
        subscript(index: Int) -> Outcome? {
            get { byIndex.indices.contains(index) ? byIndex[index] : nil }
            set {
                guard byIndex.indices.contains(index) else { return }
                count += (newValue != nil ? 1 : 0) - (byIndex[index] != nil ? 1 : 0)
                byIndex[index] = newValue
            }
        }

        var description: String {
            "\(count) outcomes: " + byIndex.indices.compactMap { index in byIndex[index].map { "\(index): \($0)" } }.joined(separator: ", ")
        }
    }

    /// One unnamed file, open.
    private enum Made {
        case file(FileDescriptor, FileStatus, SHA256Digest)
        case unsupported
        case failed(SystemError)

        func close() {
            if case .file(let file, _, _) = self { file.close() }
        }
    }

    /// The most files made ahead of the naming.
    let window: Int
    /// Requests by index; the ones made are released.
    private var requests: [Request?] = []
    /// How many files were requested.
    private var count: Int { requests.count }
    private let condition = NSCondition()
    /// Files made and not named or closed yet, by index.
    private var made: [Int: Made] = [:]
    /// The next index to make (claimed under the lock by either thread).
    private var nextToMake = 0
    /// Files below this index are named or closed; making stays within `window` of it.
    private var consumed = 0
    /// The names, in increasing index order, once the caller gives them.
    private var targets: [(index: Int, path: String)]?
    private var nextTarget = 0
    private var outcomes = Outcomes()
    /// The unnamed file system was refused once: make no more.
    private var unsupported = false
    private var isFinished = false
    /// ``link(_:once:)``'s check is running: the names are on their way.
    private var gatePending = false
    private var linkingDone = false
    private var workerDone = false
    /// Threads started by ``addMaker()`` that have not stopped.
    private var makers = 0

    /// Starts the worker, which waits for requests.
    /// - Parameter window: the most files made ahead of the naming (open at once).
    init(window: Int = UnnamedFileQueue.openFileBudget) {
        self.window = max(1, window)
        let thread = Thread { [self] in work() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The worker: names files when it may, makes them otherwise.
    private func work() {
        condition.lock()
        while !isFinished {
            skipToNextTarget()
            if let targets, nextTarget < targets.count, targets[nextTarget].index < nextToMake, made[targets[nextTarget].index] != nil {
                let target = targets[nextTarget]
                nextTarget += 1
                let file = made.removeValue(forKey: target.index) ?? .unsupported
                consumed = target.index + 1
                condition.broadcast()
                condition.unlock()
                let outcome = name(file, target.path)
                condition.lock()
                outcomes[target.index] = outcome
                if nextTarget == targets.count { finishLinking() }
                continue
            }
            if let targets, nextTarget == targets.count {
                finishLinking()
                break
            }
            if makeOne() { continue }
            condition.wait()
        }
        workerDone = true
        condition.broadcast()
        condition.unlock()
    }

    /// Once the names are known, files below the next one to name will never be named: closes
    /// them and skips their requests, so the window moves on. Called with the lock held.
    private func skipToNextTarget() {
        guard let targets, nextTarget < targets.count else { return }
        let next = targets[nextTarget].index
        guard consumed < next else { return }
        for skipped in consumed..<next { made.removeValue(forKey: skipped)?.close() }
        consumed = next
        if nextToMake < next {
            for skipped in nextToMake..<next { requests[skipped] = nil }
            nextToMake = next
        }
        condition.broadcast()
    }

    private func finishLinking() {
        linkingDone = true
        for (_, file) in made { file.close() }
        made = [:]
        consumed = count
        condition.broadcast()
    }

    /// Makes the next file if the window allows; called with the lock held, returns with it
    /// held. Returns whether it made (or tried to make) one.
    private func makeOne() -> Bool {
        guard nextToMake < count, nextToMake - consumed < window, !linkingDone, let request = requests[nextToMake] else { return false }
        let index = nextToMake
        requests[index] = nil
        nextToMake += 1
        let skip = unsupported
        condition.unlock()
        let file = skip ? Made.unsupported : make(request())
        condition.lock()
        if case .unsupported = file { unsupported = true }
        if linkingDone || index < consumed {
            file.close()
        } else {
            made[index] = file
        }
        condition.broadcast()
        return true
    }

    private func make(_ request: (directory: String, bytes: [UInt8])) -> Made {
        let (directory, bytes) = request
        do {
            let result: (FileDescriptor, FileStatus)?
            do {
                result = try FileSystem.makeUnnamedFile(inDirectory: directory, bytes)
            } catch where error.isNotFound {
                try FileSystem.createDirectories(directory)
                result = try FileSystem.makeUnnamedFile(inDirectory: directory, bytes)
            }
            guard let (file, status) = result else { return .unsupported }
            return .file(file, status, SHA256.hash(bytes))
        } catch {
            return .failed(error)
        }
    }

    private func name(_ file: Made, _ path: String) -> Outcome {
        switch file {
        case .file(let descriptor, let status, let hash):
            defer { descriptor.close() }
            do {
                return try FileSystem.linkUnnamedFile(descriptor, at: path) ? .linked(Linked(status: status, contentHash: hash)) : .notLinked
            } catch {
                return .failed(error)
            }
        case .unsupported:
            return .notLinked
        case .failed(let error):
            return .failed(error)
        }
    }

    /// Adds a file to make; returns its index. Call before ``link(_:)``.
    func add(_ request: @escaping Request) -> Int {
        add(contentsOf: [request]).first ?? -1
    }

    /// Adds files to make, in order; returns their indexes (empty once names were handed over
    /// or the queue finished). One lock and one wake-up for the lot.
    func add(contentsOf newRequests: [Request]) -> Range<Int> {
        condition.lock()
        defer { condition.unlock() }
        guard targets == nil && !isFinished && !gatePending else { return 0..<0 }
        let first = requests.count
        requests.append(contentsOf: newRequests.map { Optional($0) })
        condition.broadcast()
        return first..<requests.count
    }

    /// Hands the names to the worker: file `index` is named `path`, in index order. Files of
    /// indexes not named are closed without a name, and no more files may be added. Call
    /// once, when the files may appear; later calls are ignored.
    func link(_ targets: [(index: Int, path: String)]) {
        condition.lock()
        if self.targets != nil { condition.unlock(); return }
        var seen = Set<Int>()
        self.targets = targets.filter { $0.index >= 0 && $0.index < count && seen.insert($0.index).inserted }.sorted { $0.index < $1.index }
        outcomes = Outcomes(count: count)
        condition.broadcast()
        condition.unlock()
    }

    /// Hands the names to the worker once `ready` returns `true`; `ready` runs on another
    /// thread meanwhile (it makes the names' existence durable: a sync), so neither the caller
    /// nor the worker, which goes on making files, waits for it. When it returns `false`,
    /// nothing is named. No more files may be added.
    func link(_ targets: [(index: Int, path: String)], once ready: @escaping @Sendable () -> Bool) {
        condition.lock()
        if self.targets != nil || gatePending { condition.unlock(); return }
        gatePending = true
        condition.unlock()
        let thread = Thread { [self] in
            let isReady = ready()
            link(isReady ? targets : [])
            condition.lock()
            gatePending = false
            condition.broadcast()
            condition.unlock()
        }
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// Starts a thread that only makes files, so that the worker only names them: for a
    /// batch much larger than the window, where making and naming one after the other on the
    /// worker would take twice as long as naming alone. It stops when the naming is done.
    func addMaker() {
        condition.lock()
        guard !isFinished && !linkingDone else { condition.unlock(); return }
        makers += 1
        condition.unlock()
        let thread = Thread { [self] in
            condition.lock()
            while !isFinished && !linkingDone {
                if makeOne() { continue }
                condition.wait()
            }
            makers -= 1
            condition.broadcast()
            condition.unlock()
        }
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// Waits until every file handed to ``link(_:)`` is named (or could not be), making files
    /// meanwhile; returns what became of each, by index.
    /// - Parameter progress: told, every `stride` files and outside the queue's lock, how many
    ///   of the files handed to it the worker has named, out of how many.
    func linkResults(stride: Int = 1_024, progress: ((_ named: Int, _ total: Int) -> Void)? = nil) -> Outcomes {
        condition.lock()
        defer { condition.unlock() }
        var reported = 0
        while !linkingDone && !workerDone {
            if let progress, let targets, nextTarget - reported >= stride {
                reported = nextTarget
                condition.unlock()
                progress(reported, targets.count)
                condition.lock()
                continue
            }
            if makeOne() { continue }
            condition.wait()
        }
        return outcomes
    }

    /// How many files a queue may hold open at once: a quarter of the process's descriptor
    /// limit, between 16 and 1,024, so that files for a whole batch can be made ahead where
    /// the limit allows it and a small limit (macOS's 256) is never used up.
    static let openFileBudget: Int = {
        var limit = rlimit()
        #if canImport(Glibc)
        let status = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #else
        let status = getrlimit(RLIMIT_NOFILE, &limit)
        #endif
        guard status == 0 else { return 64 }
        let soft = limit.rlim_cur > 1 << 20 ? 1 << 20 : Int(limit.rlim_cur)
        return max(16, min(1024, (soft - 64) / 4))
    }()

    /// Stops the worker, waits for it, and closes the files nobody named; returns how many.
    /// Call once, when done (also after an error, or without ever calling ``link(_:)``).
    @discardableResult
    func finish() -> Int {
        condition.lock()
        while gatePending { condition.wait() }
        isFinished = true
        condition.broadcast()
        while !workerDone || makers > 0 { condition.wait() }
        let left = made
        made = [:]
        linkingDone = true
        condition.unlock()
        var closed = 0
        for case .file(let file, _, _) in left.values {
            file.close()
            closed += 1
        }
        return closed
    }
}
