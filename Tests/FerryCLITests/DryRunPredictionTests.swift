import Foundation
import Ferry
import FerryTestSupport
import Testing

/// A dry run says what the real run then does, resolving policies included (issue 52, item 6).
@Suite struct DryRunPredictionTests {
    /// Two stores whose Note/n was edited on both sides since they last met: `laptop` changed
    /// `laptopEdit`, `phone` changed `phoneEdit` (fields of `{"t": "x", "p": 1}`).
    func diverged(laptopEdit: String, phoneEdit: String) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        func ferry(_ arguments: [String]) throws { _ = try runFerry(arguments, currentDirectory: directory.path) }
        try ferry(["init", "laptop"])
        try ferry(["init", "phone"])
        try ferry(["put", "laptop", "Note", "n", "--json", #"{"t": "x", "p": 1}"#])
        try ferry(["sync", "phone", "laptop"])
        try ferry(["put", "laptop", "Note", "n", "--json", laptopEdit])
        try ferry(["put", "phone", "Note", "n", "--json", phoneEdit])
        return directory
    }

    /// The dry run's line and the real run's, with the dry run's verbs made the real ones.
    func bothRuns(_ directory: TemporaryDirectory, policy: String) throws -> (dry: String, real: String) {
        let dry = try runFerry(["sync", "laptop", "phone", "--dry-run", "--policy", policy], currentDirectory: directory.path)
        let real = try runFerry(["sync", "laptop", "phone", "--policy", policy], currentDirectory: directory.path)
        #expect(dry.exitCode == 0 && real.exitCode == 0, "\(dry) \(real)")
        func counts(_ text: String) -> String {
            text.replacingOccurrences(of: #" \(\d+ ms\)"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: "would resolve", with: "resolved").replacingOccurrences(of: "would ", with: "")
                .replacingOccurrences(of: "pull ", with: "pulled ").replacingOccurrences(of: "push ", with: "pushed ")
        }
        return (counts(dry.stdout), counts(real.stdout))
    }

    @Test func aMergeIsPredictedAsAMerge() throws {
        let directory = try diverged(laptopEdit: #"{"t": "y", "p": 1}"#, phoneEdit: #"{"t": "x", "p": 2}"#)
        let (dry, real) = try bothRuns(directory, policy: "merge")
        #expect(real == "incremental: pulled 1, pushed 2, resolved 1 by merge, 0 conflicts\n")
        #expect(dry == real)
    }

    @Test func aMergeOfTheSameFieldIsPredictedAsTheConflictItStays() throws {
        let directory = try diverged(laptopEdit: #"{"t": "y", "p": 1}"#, phoneEdit: #"{"t": "z", "p": 1}"#)
        let (dry, real) = try bothRuns(directory, policy: "merge")
        #expect(real.hasPrefix("incremental: pulled 1, pushed 1, 1 conflict\n"), "\(real)")
        #expect(dry == real)
    }

    @Test func lastWriterWinsIsPredictedAsResolved() throws {
        let directory = try diverged(laptopEdit: #"{"t": "y", "p": 1}"#, phoneEdit: #"{"t": "z", "p": 1}"#)
        let (dry, real) = try bothRuns(directory, policy: "lww")
        #expect(real == "incremental: pulled 1, pushed 2, resolved 1 by lww, 0 conflicts\n")
        #expect(dry == real)
    }
}
