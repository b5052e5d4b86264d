import Dispatch
import Foundation

/// Spreads CPU-bound work over the machine's cores: audit (parsing and hashing journal lines,
/// comparing record files), a batch's canonical forms, and parsing and converting a large
/// import.
enum ParallelWork {
    /// The cores this process may use, read once: Foundation reads the cgroup's CPU files on
    /// Linux each time it is asked, which costs more than a small piece of work.
    static let processorCount = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// `body(index)` for every index in `0..<count`, in up to one chunk per core; results in
    /// index order. Runs inline when the work is too small to share.
    static func map<T: Sendable>(count: Int, minimumChunk: Int = 128, _ body: @Sendable (Int) -> T) -> [T] {
        let workers = max(1, min(processorCount, count / max(1, minimumChunk)))
        if workers == 1 { return (0..<count).map(body) }
        var results = [T?](repeating: nil, count: count)
        results.withUnsafeMutableBufferPointer { buffer in
            let output = OutputSlots(buffer)
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let start = count * worker / workers
                let end = count * (worker + 1) / workers
                for index in start..<end { output.store(body(index), at: index) }
            }
        }
        return results.compactMap { $0 }
    }

    /// `body(index)` for every index in `0..<count`, each handed to the next free core (for a
    /// few large pieces of uneven cost); results in index order.
    static func each<T: Sendable>(count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        if count <= 1 || processorCount == 1 { return (0..<count).map(body) }
        var results = [T?](repeating: nil, count: count)
        results.withUnsafeMutableBufferPointer { buffer in
            let output = OutputSlots(buffer)
            DispatchQueue.concurrentPerform(iterations: count) { index in output.store(body(index), at: index) }
        }
        return results.compactMap { $0 }
    }

    /// Result slots that each worker writes at its own indexes only.
    private struct OutputSlots<T>: @unchecked Sendable {
        let buffer: UnsafeMutableBufferPointer<T?>
        init(_ buffer: UnsafeMutableBufferPointer<T?>) { self.buffer = buffer }
        func store(_ value: T, at index: Int) { buffer[index] = value }
    }
}
