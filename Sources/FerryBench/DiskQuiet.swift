import Foundation

/// Waits for the machine's disks to go quiet before a timed scale run.
///
/// On a file system mounted with `discard`, removing millions of files keeps the disk busy
/// for many minutes after `rm` returns (the kernel issues the freed blocks' discards in the
/// background); a scale run started then measured the disk's cleanup as much as Ferry (the
/// 100k import's five runs spread from 1.7 s to 4.9 s). This reads the block devices'
/// counters (`/sys/block/*/stat`: sectors written, sectors discarded, requests in flight)
/// and returns once a whole window passed with nothing in flight at any sample and less than
/// a megabyte written or discarded. Where there is no `/sys/block` (macOS) it returns at once.
struct DiskQuiet {
    /// One reading of every block device that has a driver (not loop or RAM devices).
    struct Reading {
        var sectorsWritten: UInt64 = 0
        var sectorsDiscarded: UInt64 = 0
        var inFlight: UInt64 = 0
    }

    /// How long the disks must stay quiet, in seconds.
    var window = 5.0
    /// How long to wait at most before going on anyway (and saying so), in seconds.
    var limit = 900.0

    /// The block devices' counters now; `nil` where the system has none.
    static func read() -> Reading? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/sys/block") else { return nil }
        var reading = Reading()
        var found = false
        for name in names where FileManager.default.fileExists(atPath: "/sys/block/\(name)/device") {
            guard let text = try? String(contentsOfFile: "/sys/block/\(name)/stat", encoding: .utf8) else { continue }
            // Fields, counted from 1 (Documentation/block/stat.rst): 7 sectors written,
            // 9 in flight, 14 sectors discarded (kernels from 4.18).
            let fields = text.split(separator: " ").compactMap { UInt64($0) }
            guard fields.count >= 11 else { continue }
            found = true
            reading.sectorsWritten += fields[6]
            reading.inFlight += fields[8]
            if fields.count >= 14 { reading.sectorsDiscarded += fields[13] }
        }
        return found ? reading : nil
    }

    /// Waits until the disks have been quiet for ``window`` seconds, printing to stderr when
    /// it has to wait; returns the seconds waited.
    @discardableResult
    func wait() -> Double {
        guard var start = Self.read() else { return 0 }
        let began = Date()
        var quietSince = Date()
        var said = false
        // A megabyte of 512-byte sectors: a log line or two is quiet, a discard is not.
        let allowance: UInt64 = 2048
        while true {
            usleep(500_000)
            guard let now = Self.read() else { return 0 }
            let moved = (now.sectorsWritten &- start.sectorsWritten) &+ (now.sectorsDiscarded &- start.sectorsDiscarded)
            if now.inFlight > 0 || moved > allowance {
                start = now
                quietSince = Date()
                if !said {
                    FileHandle.standardError.write(Data("  waiting for the disk to go quiet (writes or discards in progress)\n".utf8))
                    said = true
                }
            } else if Date().timeIntervalSince(quietSince) >= window {
                let waited = Date().timeIntervalSince(began)
                if said { FileHandle.standardError.write(Data(String(format: "  the disk is quiet after %.0f s\n", waited).utf8)) }
                return waited
            }
            if Date().timeIntervalSince(began) >= limit {
                FileHandle.standardError.write(
                    Data(String(format: "  the disk is still busy after %.0f s: going on, and the figures may be slower\n", limit).utf8))
                return limit
            }
        }
    }
}
