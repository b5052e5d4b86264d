#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Synchronization

/// Record files to `fstatat`, gathered by a status scan while it reads the index, and stated
/// on another core while the scan reads on (see ``Store/scanForEdits(progress:)``).
///
/// At a million records a scan spends two thirds of its time in the kernel resolving names;
/// the reading and comparing is the rest. A batch is stated by a worker thread from the
/// front, and by the scan's own thread from the back once it has gathered the next batch,
/// the two meeting at a shared counter; the scan then compares the batch's files with their
/// stamps in index order.
final class RecordFileStatBatch: @unchecked Sendable {
    /// A file's status, or why there is none.
    enum Outcome {
        case found(FileStatus)
        /// No such file, or it could not be stated: the scan looks again by path.
        case notFound
    }

    /// Per file: the entity folder's descriptor, and where its name (NUL-terminated) starts.
    private(set) var folders: [Int32] = []
    private(set) var folderNumbers: [Int] = []
    private var nameStarts: [Int] = []
    private var names: [UInt8] = []
    /// Per file, for the scan: the record's sort key and index line, copied, and its
    /// confirmed stamp.
    private var lineBytes: [UInt8] = []
    private var lineBounds: [(sortKey: Range<Int>, line: Range<Int>)] = []
    private(set) var confirmedStamps: [FileStamp?] = []
    /// Written by both threads, each at the indexes it took; allocated by ``start()``.
    private var outcomes = UnsafeMutableBufferPointer<Outcome>(start: nil, count: 0)
    /// The next file to state, shared by the two threads that state them.
    private let next = Atomic<Int>(0)
    private let done = DispatchGroup()

    static let capacity = 4096

    var count: Int { folders.count }
    var isFull: Bool { folders.count >= Self.capacity }

    /// Adds the file `<encoded id>.json` in `folder` (a descriptor, or -1 for a record the
    /// scan looks up itself), of the record with `sortKey` and index `line`; `folderNumber` is
    /// the scan's number for the folder.
    func append(
        folder: Int32, folderNumber: Int, encodedID: ArraySlice<UInt8>, sortKey: ArraySlice<UInt8>, line: ArraySlice<UInt8>,
        confirmedStamp: FileStamp?
    ) {
        folders.append(folder)
        folderNumbers.append(folderNumber)
        nameStarts.append(names.count)
        names.append(contentsOf: encodedID)
        names.append(contentsOf: RecordFileName.fileExtension.utf8)
        names.append(0)
        let keyStart = lineBytes.count
        lineBytes.append(contentsOf: sortKey)
        let lineStart = lineBytes.count
        lineBytes.append(contentsOf: line)
        lineBounds.append((keyStart..<lineStart, lineStart..<lineBytes.count))
        confirmedStamps.append(confirmedStamp)
    }

    func sortKey(_ index: Int) -> ArraySlice<UInt8> { lineBytes[lineBounds[index].sortKey] }
    func line(_ index: Int) -> ArraySlice<UInt8> { lineBytes[lineBounds[index].line] }
    func outcome(_ index: Int) -> Outcome { outcomes[index] }

    /// Starts stating the batch on a thread of its own (not one of Dispatch's, which a server
    /// may have all busy waiting for the store this scan holds).
    func start() {
        outcomes = .allocate(capacity: count)
        outcomes.initialize(repeating: .notFound)
        next.store(0, ordering: .relaxed)
        done.enter()
        let thread = Thread { [self] in
            stateFiles()
            done.leave()
        }
        thread.start()
    }

    /// States what the worker has not yet taken, then waits for it: the batch's outcomes are
    /// all in when this returns.
    func finish() {
        stateFiles()
        done.wait()
    }

    /// Takes files a few at a time from the shared counter and states them.
    private func stateFiles() {
        let total = count
        let results = outcomes
        names.withUnsafeBufferPointer { nameBytes in
            nameBytes.withMemoryRebound(to: CChar.self) { name in
                while true {
                    let start = next.add(16, ordering: .relaxed).oldValue
                    if start >= total { return }
                    for index in start..<min(total, start + 16) where folders[index] >= 0 {
                        var info = stat()
                        if fstatat(folders[index], name.baseAddress! + nameStarts[index], &info, AT_SYMLINK_NOFOLLOW) == 0 {
                            results[index] = .found(FileStatus(info))
                        }
                    }
                }
            }
        }
    }

    deinit {
        outcomes.deallocate()
    }
}
