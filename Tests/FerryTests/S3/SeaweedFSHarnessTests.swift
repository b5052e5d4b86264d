import FerryTestSupport
import Foundation
import XCTest

/// The test harness's SeaweedFS (FerryTestSupport/SeaweedFS.swift) against itself: a real
/// `weed mini` on loopback, no mock. Skips, with one line saying how to enable it, when `weed`
/// is not installed (scripts/install-test-tools.sh), unless FERRY_REQUIRE_S3=1.
final class SeaweedFSHarnessTests: XCTestCase {
    func testStartsWithAuthenticationStoresObjectsAndRestarts() throws {
        guard let weed = try SeaweedFS.availableOrSkip() else {
            throw XCTSkip("weed not found; run scripts/install-test-tools.sh")
        }
        let directory = try TemporaryDirectory()
        let server = try SeaweedFS.start(in: directory.subpath("weed"), executable: weed)
        defer { server.stop() }
        print("SeaweedFS ready in \(String(format: "%.2f", server.startupSeconds)) s at \(server.endpoint)")
        XCTAssertEqual(server.endpoint, "http://127.0.0.1:\(server.ports.s3)")
        XCTAssertEqual(server.region, "us-east-1")

        try server.createBucket("harness")
        XCTAssertThrowsError(try server.createBucket("harness"), "a second CreateBucket answers 409")

        let put = try server.request("PUT", "/harness/notes/a.json", body: Array(#"{"a":1}"#.utf8))
        XCTAssertEqual(put.status, 200, put.text)
        let get = try server.request("GET", "/harness/notes/a.json")
        XCTAssertEqual(get.status, 200, get.text)
        XCTAssertEqual(get.text, #"{"a":1}"#)

        let wrongSecret = try server.request("GET", "/harness/notes/a.json", secretKey: "not-the-secret")
        XCTAssertEqual(wrongSecret.status, 403)
        XCTAssertTrue(wrongSecret.text.contains("SignatureDoesNotMatch"), wrongSecret.text)
        let unsigned = try SeaweedFSHarnessTests.status(of: server.endpoint + "/harness/notes/a.json")
        XCTAssertEqual(unsigned, 403, "an unsigned request is refused")

        let overwrite = try server.request(
            "PUT", "/harness/notes/a.json", body: Array("other".utf8), headers: ["If-None-Match": "*"])
        XCTAssertEqual(overwrite.status, 412, overwrite.text)
        XCTAssertEqual(try server.request("GET", "/harness/notes/a.json").text, #"{"a":1}"#)

        // Killed and started again on the same ports and data: what was written is there at once.
        server.kill()
        XCTAssertThrowsError(try server.request("GET", "/harness/notes/a.json", timeout: 2))
        try server.restart()
        let again = try server.request("GET", "/harness/notes/a.json")
        XCTAssertEqual(again.status, 200, again.text)
        XCTAssertEqual(again.text, #"{"a":1}"#)

        server.stop()
        XCTAssertThrowsError(try server.request("GET", "/", timeout: 2), "nothing answers after stop()")
        for port in server.ports.all {
            XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/seaweedfs-master-grpc-\(port).sock"))
        }
    }

    /// A weed that dies at start is reported at once, with the end of its log.
    func testAWeedThatExitsAtStartIsReportedWithItsLog() throws {
        let directory = try TemporaryDirectory()
        let script = directory.subpath("weed")
        try "#!/bin/sh\necho 'F1125 mini.go:1 cannot open the data folder' >&2\nexit 3\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        XCTAssertThrowsError(try SeaweedFS.start(in: directory.subpath("server"), executable: script)) { error in
            let message = String(describing: error)
            XCTAssertTrue(message.contains("exited (status 3)"), message)
            XCTAssertTrue(message.contains("cannot open the data folder"), message)
        }
    }

    /// The HTTP status of an unsigned GET.
    static func status(of url: String) throws -> Int {
        let result = try FerryTestSupport.runProgram("/usr/bin/env", ["curl", "-s", "-o", "/dev/null", "--max-time", "10", "-w", "%{http_code}", url])
        return Int(result.stdout) ?? 0
    }
}
