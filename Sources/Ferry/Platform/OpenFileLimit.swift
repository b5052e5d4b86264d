#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`): a server holds one per
/// connection and two or three per open store, and systemd's default soft limit (1,024) runs
/// out long before the hard limit does.
///
/// ```swift
/// let limit = OpenFileLimit.raiseToHardLimit()   // (before: 1024, after: 524288)
/// ```
package enum OpenFileLimit {
    #if canImport(Darwin)
    private static let resource = RLIMIT_NOFILE
    #else
    private static let resource = Int32(RLIMIT_NOFILE.rawValue)
    #endif

    /// The soft limit now.
    package static var current: UInt64 {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        return UInt64(limit.rlim_cur)
    }

    /// Raises the soft limit to the hard limit (at most `ceiling`), where the system allows.
    /// - Returns: the soft limit before and after.
    @discardableResult
    package static func raiseToHardLimit(ceiling: UInt64 = 1 << 20) -> (before: UInt64, after: UInt64) {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return (1024, 1024) }
        let before = UInt64(limit.rlim_cur)
        let target = min(UInt64(limit.rlim_max), ceiling)
        guard target > before else { return (before, before) }
        limit.rlim_cur = rlim_t(target)
        guard setrlimit(resource, &limit) == 0 else { return (before, before) }
        return (before, target)
    }
}
