import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread a streamed response is read on (``SocketHTTPStream``, and `CurlHTTPStream` in
/// `FerryURLSession`): started for one exchange, it reports the response's status once, then
/// goes on handing the body on until the response ends, while the caller reads the bytes.
package enum StreamReadingThread {
    /// What the exchange reports first: the response's status, or why there is none.
    package typealias Head = CheckedContinuation<Result<HTTPStatus, HTTPClientFailure>, Never>

    /// Starts `run` on a thread of its own called `name` and returns the status it reports
    /// through its argument (exactly once); `cancel` is called if the task is cancelled meanwhile.
    /// - Parameter name: at most 15 bytes; the kernel knows the thread by it too, where tools
    ///   (`top -H`) and tests read it.
    package static func start(
        named name: String, cancel: @escaping @Sendable () -> Void, run: @escaping @Sendable (Head) -> Void
    ) async throws(HTTPClientFailure) -> HTTPStatus {
        let head = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiting: Head) in
                let thread = Thread {
                    nameInKernel(name)
                    run(waiting)
                }
                thread.name = name
                thread.start()
            }
        } onCancel: {
            cancel()
        }
        return try head.get()
    }

    /// Names the calling thread in `/proc/<pid>/task/<tid>/comm` (Linux; Foundation's
    /// `Thread.name` stays in the process, and Glibc's module leaves `pthread_setname_np` out).
    private static func nameInKernel(_ name: String) {
        #if os(Linux)
        let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard comm >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(comm, $0.baseAddress, $0.count) }
        _ = close(comm)
        #endif
    }
}
