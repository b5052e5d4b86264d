/// A store's signed statement of the state it offers a joining replica: the journal position
/// the state stands for and the hash of its entry there, the frontier, the counts, and the
/// state digest of exactly the versions offered, in the order they are sent
/// (``HubSnapshot/stateDigest(of:)``, the digest a hub snapshot states), signed with the
/// store's own key (``SignedObject``, domain ``signatureDomain``).
///
/// The joining replica reads every version first, checks each against its digest and each
/// parent link between consecutive versions of one origin (``SnapshotCheck``), recomputes the
/// state digest, and checks the statement (``problem(with:offer:from:held:received:)``)
/// before it applies any of it. The signer must be the key the offering store's replica id is
/// made from (or, for an older id, the key the joiner holds for it).
///
/// ```json
/// {"changes":40,"ferry-store-state":1,"frontier":{"6b1c…":[208,"…"]},"id":"…","position":208,
///  "records":40,"replica":"6b1c…","sig":"…","signer":"…","state":"…"}
/// ```
public struct StateStatement: Sendable, Equatable {
    /// The statement format.
    public static let format: Int64 = 1
    /// What statements are signed under: `ferry-store-state-v1:` and the statement.
    public static let signatureDomain = "ferry-store-state-v1:"

    /// The store stating its state.
    public var replica: ReplicaID
    /// The journal position the state stands for, and the hash of the store's entry there.
    public var position: UInt64
    public var entryHash: SHA256Digest
    /// Each origin's latest change the state reflects, and its digest.
    public var frontier: ReplicaFrontier
    /// Records (live and deleted) and versions offered.
    public var recordCount: Int
    public var changeCount: Int
    /// The digest of the versions offered, in the order they are sent.
    public var stateDigest: SHA256Digest

    /// The statement of `offer`'s state, made by `replica`, whose versions give `stateDigest`.
    init(offer: SnapshotOffer, replica: ReplicaID, stateDigest: SHA256Digest) {
        self.replica = replica
        position = offer.position ?? 0
        entryHash = offer.id
        frontier = offer.frontier
        recordCount = offer.recordCount
        changeCount = offer.changeCount
        self.stateDigest = stateDigest
    }

    /// The statement's members, unsigned.
    public var jsonValue: JSONValue {
        .object([
            "ferry-store-state": .integer(Self.format), "replica": .string(replica.rawValue),
            "position": .integer(Int64(clamping: position)), "id": .string(entryHash.hex), "frontier": frontier.jsonValue,
            "records": .integer(Int64(recordCount)), "changes": .integer(Int64(changeCount)), "state": .string(stateDigest.hex),
        ])
    }

    /// The statement signed with `key`: what a store offers.
    package func signed(with key: ReplicaSigningKey) -> JSONValue {
        SignedObject.signed(jsonValue, domain: Self.signatureDomain, with: key)
    }

    /// A statement that cannot be read: which member is missing or malformed.
    package struct ReadProblem: Error, Sendable {
        package let reason: String
    }

    /// Reads a statement's members (its signature is checked apart).
    /// - Throws: ``ReadProblem`` naming the member that is missing or malformed.
    package init(json: JSONValue) throws(ReadProblem) {
        func bad(_ reason: String) -> ReadProblem { ReadProblem(reason: reason) }
        guard json["ferry-store-state"]?.integerValue == Self.format else { throw bad("it is not a format \(Self.format) statement of a store's state") }
        guard let replicaText = json["replica"]?.stringValue, let replica = ReplicaID(replicaText) else { throw bad("no \"replica\"") }
        guard let position = json["position"]?.integerValue, position > 0 else { throw bad("no \"position\"") }
        guard let idText = json["id"]?.stringValue, let entryHash = SHA256Digest(hex: idText) else { throw bad("no \"id\"") }
        guard let stateText = json["state"]?.stringValue, let stateDigest = SHA256Digest(hex: stateText) else { throw bad("no \"state\"") }
        guard let records = json["records"]?.integerValue, records >= 0, let changes = json["changes"]?.integerValue, changes >= 0 else {
            throw bad("no \"records\" or \"changes\"")
        }
        guard let frontierMembers = json["frontier"]?.objectValue else { throw bad("no \"frontier\"") }
        do { frontier = try ReplicaFrontier(json: frontierMembers) } catch { throw bad(error.reason) }
        self.replica = replica
        self.position = UInt64(position)
        self.entryHash = entryHash
        self.stateDigest = stateDigest
        recordCount = Int(records)
        changeCount = Int(changes)
    }

    /// Why `statement` does not vouch for `offer`'s state as received from replica `source`
    /// (one line), or `nil` when it does: it is signed by the key `source`'s id is made from
    /// (or for an older id, by `held`, the key held for it, or with none held any key, trusted
    /// on first use), states that replica, the offer's position, entry hash, frontier and
    /// counts, and the state digest of the versions `received`.
    static func problem(
        with statement: JSONValue, offer: SnapshotOffer, from source: ReplicaID, held: ReplicaPublicKey?, received: SHA256Digest
    ) -> String? {
        switch SignedObject.standing(of: SignedObject.signature(of: statement, domain: signatureDomain), for: source, held: held) {
        case .forged(let reason): return "its statement of the state is not its own: \(reason)"
        case .unprovable: return "its statement of the state is not signed"
        case .owner: break
        }
        let stated: StateStatement
        do { stated = try StateStatement(json: statement) } catch { return "its statement of the state cannot be read: \(error.reason)" }
        if stated.replica != source { return "its statement is of replica \(stated.replica.short)'s state, not its own" }
        if stated.position != offer.position || stated.entryHash != offer.id {
            return "its statement is of its journal entry \(stated.position), not of entry \(offer.position ?? 0) that it offered"
        }
        if stated.frontier != offer.frontier || stated.recordCount != offer.recordCount || stated.changeCount != offer.changeCount {
            return "its statement names another frontier or other counts than its offer"
        }
        if stated.stateDigest != received {
            return "the versions it sent do not give the state digest it signed (altered after it was stated)"
        }
        return nil
    }
}
