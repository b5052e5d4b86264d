import Foundation
import FerryTestSupport

/// A Wycheproof test vector file (`Tests/Vectors/wycheproof/`), with the fields the crypto tests
/// read; each kind of test fills the fields of its own.
struct WycheproofFile: Decodable {
    struct Group: Decodable {
        struct Key: Decodable { var pk: String }
        var publicKey: Key?
        var tests: [Test]
    }

    struct Test: Decodable {
        var tcId: Int
        var comment: String
        var flags: [String]
        var result: String
        // Signatures.
        var msg: String?
        var sig: String?
        // Key agreement.
        var `public`: String?
        var `private`: String?
        var shared: String?
        // AEAD.
        var key: String?
        var iv: String?
        var aad: String?
        var ct: String?
        var tag: String?

        var label: String { "tcId \(tcId): \(comment) \(flags)" }
    }

    var numberOfTests: Int
    var testGroups: [Group]

    static func load(_ name: String) throws -> WycheproofFile {
        try JSONDecoder().decode(WycheproofFile.self, from: Data(contentsOf: URL(fileURLWithPath: TestVectors.path("wycheproof/" + name))))
    }

    var tests: [Test] { testGroups.flatMap(\.tests) }
}
