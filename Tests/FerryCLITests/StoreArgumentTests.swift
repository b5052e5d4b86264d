import Foundation
import Ferry
import FerryTestSupport
import Testing

/// `diff`, `log`, `verify` (and every command that reads a store) read their store argument by
/// the one rule of PeerAddress: a URL or a hub is named as what it is, never taken for a folder
/// to `ferry init` (issue 52, item 6).
@Suite struct StoreArgumentTests {
    @Test(arguments: [
        (["log", "http://127.0.0.1:1/alice"], "is a store served over HTTP, not a store folder"),
        (["diff", "$S", "http://127.0.0.1:1/alice"], "is a store served over HTTP, not a store folder"),
        (["diff", "$S", "$H"], "is a hub, not a store: this command reads a store folder; 'ferry verify"),
        (["log", "$H"], "is a hub, not a store"),
        (["log", "s3://bucket/notes"], "is a hub, not a store"),
        (["diff", "pocketbase+http://127.0.0.1:1", "$S"], "is an app backend, not a store"),
        (["log", "ftp://example.com/x"], "not ftp:// locations"),
    ])
    func aURLOrAHubIsNamedAsWhatItIs(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory()
        _ = try runFerry(["init", directory.subpath("s")])
        _ = try runFerry(["hub", "init", directory.subpath("h")])
        let resolved = arguments.map { $0 == "$S" ? directory.subpath("s") : $0 == "$H" ? directory.subpath("h") : $0 }
        let result = try runFerry(resolved)
        #expect(result.exitCode != 0, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
        #expect(!result.stderr.contains("is not a Ferry store"), "\(result)")
        #expect(result.stderr.split(separator: "\n").count <= 2, "\(result)")
    }

    @Test func verifyChecksAHubAndNamesAServedStore() throws {
        let directory = try TemporaryDirectory()
        _ = try runFerry(["hub", "init", directory.subpath("h")])
        let hub = try runFerry(["verify", directory.subpath("h")])
        #expect(hub.exitCode == 0 && hub.stdout.hasPrefix("ok: "), "\(hub)")
        let served = try runFerry(["verify", "http://127.0.0.1:1/alice"])
        #expect(served.exitCode == 2 && served.stderr.contains("verify checks a store folder or a hub"), "\(served)")
        #expect(!served.stderr.contains("is not a Ferry store"), "\(served)")
    }
}
