import Ferry
import FerryTestSupport
import Foundation
import Testing

/// `ferry demo`, the README's first command, runs the whole story and checks its own outcome.
@Suite struct DemoCommandTests {
    @Test func theDemoRunsEveryStepAndEndsIdentical() throws {
        let directory = try TemporaryDirectory()
        let result = try runFerry(["demo", "--dir", directory.subpath("demo")], timeout: 300)
        #expect(result.exitCode == 0, "\(result)")
        #expect(result.stdout.contains("277 live records compared: identical"), "\(result)")
        #expect(result.stdout.contains("sync tablet ↔ hub: joined from the snapshot"), "\(result)")
        #expect(result.stdout.contains("ferry verify hub: ok"), "\(result)")
        #expect(result.stdout.contains("live records compared with the laptop: identical"), "\(result)")
        #expect(FileSystem.exists(directory.subpath("demo/tablet/.ferry/base.json")))
    }
}
