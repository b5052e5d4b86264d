import Testing
@testable import Ferry

/// The hub suites run against a plain hub and an encrypted one: an encrypted hub here has no
/// members and is opened by a passphrase (at a cheap scrypt cost), which every test transport
/// gives, so the same tests hold for both.
enum HubUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case plain
    case encrypted

    static let passphrase = "a passphrase for tests"

    var testDescription: String { rawValue }

    /// Makes `storage` a new hub of this kind.
    func create(in storage: any HubStorage) async throws {
        switch self {
        case .plain: try await Hub.create(in: storage, openToAnyWriter: true)
        case .encrypted: _ = try await Hub.createEncrypted(in: storage, founder: nil, passphrase: Self.passphrase, passphraseCost: 1 << 10)
        }
    }

    /// A transport to `storage` that opens either kind.
    static func transport(_ storage: any HubStorage, clock: any WallClock = SystemClock()) -> HubTransport {
        let transport = HubTransport(storage: storage, clock: clock)
        transport.passphrase = passphrase
        return transport
    }

    /// `storage` as tools (compact, verify, status) open either kind.
    static func opened(_ storage: any HubStorage) -> SealedHubStorage {
        SealedHubStorage(base: storage, access: HubKeyAccess(signer: nil, layout: nil, passphrase: passphrase))
    }
}
