import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Process-wide settings of the C library's allocator, for the command-line programs.
package enum ProcessMemory {
    /// Limits glibc's allocator to one arena per core (the default is eight per core).
    ///
    /// Each thread that allocates may get an arena of its own, and memory freed in an arena
    /// stays resident. Over a long command whose work moves between worker threads (verifying
    /// a million records), the arenas' freed pages made peak memory grow with the store's
    /// size though the live heap did not: `ferry verify` peaked at 50 MB at 1M records against
    /// 40 MB at 100k, and at 41 MB with one arena per core, in the same time. A
    /// `MALLOC_ARENA_MAX` set in the environment wins. Does nothing off glibc.
    package static func limitAllocatorArenas(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let limit = arenaLimit(environment: environment) else { return }
        #if canImport(Glibc)
        // `mallopt` is declared in <malloc.h>, which Swift's Glibc module leaves out: look it up.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(mArenaMax, Int32(limit))
        #endif
    }

    /// Gives memory the allocator holds free back to the system (`malloc_trim(0)` on glibc),
    /// after a request that held a lot: glibc keeps freed memory of its arenas resident, so a
    /// server that parsed one large push would otherwise stay that large. Does nothing off glibc.
    package static func returnFreeMemory() {
        #if canImport(Glibc)
        // `malloc_trim` is declared in <malloc.h>, which Swift's Glibc module leaves out.
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = mallocTrim else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }

    #if canImport(Glibc)
    nonisolated(unsafe) private static let mallocTrim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
    #endif

    /// glibc's `M_ARENA_MAX` parameter number.
    private static let mArenaMax: Int32 = -8

    /// The arena limit to set: one per core, or `nil` when the environment sets its own.
    static func arenaLimit(environment: [String: String]) -> Int? {
        if environment["MALLOC_ARENA_MAX"] != nil { return nil }
        return max(2, ParallelWork.processorCount)
    }
}
