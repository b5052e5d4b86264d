import Foundation

/// Runs blocking store work (file reads, fsync, waiting for a file lock) on a Dispatch queue,
/// so request handlers never stall the cooperative thread pool on a 2-core machine.
///
/// ```swift
/// let head = await BlockingWork.run { store.head }
/// ```
enum BlockingWork {
    private static let queue = DispatchQueue(label: "ferry.serve.store-work", attributes: .concurrent)

    /// Runs `body` off the cooperative pool and returns what it returns.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }
}
