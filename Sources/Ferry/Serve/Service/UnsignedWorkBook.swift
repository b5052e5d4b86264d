/// Which token first pushed each replica's unsigned work to a served store:
/// `.ferry/unsigned-work.json`, `{"ferry-unsigned-work":1,"origins":{"<replica>":"<holder>",…}}`.
///
/// Work that carries its origin's signature speaks for itself, whoever relays it. A replica made
/// before changes were signed (an id not derived from a key, no key held for it) has only the
/// token it came with to speak for it: the first token that pushes its unsigned work is bound to
/// it, and another token's push of more of its unsigned work is refused. Its own signed work
/// (any write by a current Ferry signs) is taken from any token, and from then on the store
/// holds its key and requires its signature.
///
/// A holder is a fingerprint of the token (``holder(ofToken:)``), never the token itself.
struct UnsignedWorkBook: Sendable, Equatable {
    static let currentFormat: Int64 = 1

    /// The holder bound to each replica.
    private(set) var holders: [ReplicaID: String]

    init(holders: [ReplicaID: String] = [:]) { self.holders = holders }

    /// The fingerprint that stands for `token`: the first 16 bytes of SHA-256 of
    /// `ferry-token-v1:` and the token, in hex.
    static func holder(ofToken token: String) -> String {
        String(SHA256.hash(Array("ferry-token-v1:\(token)".utf8)).hex.prefix(32))
    }

    /// The replicas whose unsigned work, among `changes`, is new to a store that knows
    /// `knowledge` and must be vouched for by the token that pushes it: ids not derived from a
    /// key, for which `requiresSignature` is false, with no signed change in the push.
    static func unsignedOrigins(
        of changes: [Change], knowledge: VersionVector, requiresSignature: (ReplicaID) -> Bool
    ) -> Set<ReplicaID> {
        var signed = Set<ReplicaID>()
        var unsigned = Set<ReplicaID>()
        for change in changes where !change.origin.isKeyDerived {
            if change.chain?.seal != nil { signed.insert(change.origin) }
            if change.counter > knowledge[change.origin] { unsigned.insert(change.origin) }
        }
        return unsigned.subtracting(signed).filter { !requiresSignature($0) }
    }

    /// Binds each of `origins` not bound yet to `holder`; returns the first (in id order)
    /// bound to another holder, or `nil` when `holder` may push all of them.
    mutating func bind(_ origins: Set<ReplicaID>, to holder: String) -> ReplicaID? {
        let sorted = origins.sorted()
        if let taken = sorted.first(where: { holders[$0].map { $0 != holder } ?? false }) { return taken }
        for origin in sorted where holders[origin] == nil { holders[origin] = holder }
        return nil
    }

    var jsonValue: JSONValue {
        var entries: [String: JSONValue] = [:]
        for (replica, holder) in holders { entries[replica.rawValue] = .string(holder) }
        return ["ferry-unsigned-work": .integer(Self.currentFormat), "origins": .object(entries)]
    }

    /// Reads the book at `path`: empty when there is none.
    static func read(at path: String) throws(StoreError) -> UnsignedWorkBook {
        guard FileSystem.exists(path) else { return UnsignedWorkBook() }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path, limit: 64 << 20) } catch { throw .io(error) }
        func bad(_ reason: String) -> StoreError { .signingKeyUnreadable(path: path, reason: reason) }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: .init(maximumDepth: 4, maximumByteCount: 64 << 20)) } catch {
            throw bad("not JSON: \(error)")
        }
        guard value["ferry-unsigned-work"]?.integerValue == currentFormat, let entries = value["origins"]?.objectValue else {
            throw bad("not a Ferry unsigned-work book (format \(currentFormat))")
        }
        var holders: [ReplicaID: String] = [:]
        for (text, holder) in entries {
            guard let replica = ReplicaID(text), let holder = holder.stringValue else {
                throw bad("the entry for \(text) is not a replica id and a token fingerprint")
            }
            holders[replica] = holder
        }
        return UnsignedWorkBook(holders: holders)
    }

    /// Writes it durably at `path`.
    func write(to path: String) throws(StoreError) {
        do { try FileSystem.writeFileAtomically(path, jsonValue.prettyBytes(), durable: true) } catch { throw .io(error) }
    }
}
