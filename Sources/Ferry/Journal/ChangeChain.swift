/// A change's place in its origin's own chain: the digest of the change's travelling content,
/// and the digest of the change its origin made just before it.
///
/// The digest covers what a change carries from replica to replica (origin, counter, stamp,
/// operation, record, document, version vector, and `parent`), never what is local to one
/// journal, so every replica can check it without the origin's journal. It makes two things
/// visible that a journal position cannot:
/// - a change altered after it was made (a hand-edited journal line): its content no longer
///   matches its digest, so no store sends it and no store applies it;
/// - two stores that share a replica id because a store folder was copied: their changes
///   with the same origin and counter have different digests, and the first change one of
///   them makes after the copy names a `parent` the other never had.
///
/// ```swift
/// let chain = ChangeChain(change, parent: previous.digest)
/// chain.matches(change)     // true until the change is altered
/// ```
public struct ChangeChain: Sendable, Hashable {
    /// The digest of the origin's previous change (counter − 1); zeros for its first change, and
    /// for a change journaled before changes carried digests (see ``isLegacy(counter:)``).
    public var parent: SHA256Digest
    /// SHA-256 of the canonical JSON of the change's travelling fields and `parent`.
    public var digest: SHA256Digest
    /// The origin's signature of ``digest``, on the last change of each batch it wrote (see
    /// ``ChangeSeal``); `nil` on the others, and on every change made before changes were signed.
    public var seal: ChangeSeal?

    /// Wraps a chain as read from a journal line or the wire.
    public init(parent: SHA256Digest, digest: SHA256Digest, seal: ChangeSeal? = nil) {
        self.parent = parent
        self.digest = digest
        self.seal = seal
    }

    /// Computes the chain of `change`, which follows its origin's change whose digest is `parent`.
    /// - Parameter canonicalDocument: the canonical bytes of a put's document, when the caller has them.
    public init(_ change: Change, parent: SHA256Digest, canonicalDocument: [UInt8]? = nil) {
        self.parent = parent
        self.digest = ChangeChain.digest(of: change, parent: parent, canonicalDocument: canonicalDocument)
    }

    /// Whether `change`'s content still hashes to ``digest``.
    public func matches(_ change: Change) -> Bool {
        ChangeChain.digest(of: change, parent: parent) == digest
    }

    /// Whether this chain was made for a change journaled before changes carried digests: such a
    /// change (counter above 1) names no parent, so the origin's chain cannot be followed through it.
    public func isLegacy(counter: UInt64) -> Bool {
        counter > 1 && parent == .zero
    }

    /// The digest: SHA-256 of
    /// `{"counter":…,"doc":…,"entity":…,"hlc":…,"id":…,"op":…,"origin":…,"parent":…,"vv":…}`
    /// in canonical JSON (`doc` for a put only).
    public static func digest(of change: Change, parent: SHA256Digest, canonicalDocument: [UInt8]? = nil) -> SHA256Digest {
        var bytes: [UInt8] = []
        bytes.reserveCapacity((canonicalDocument?.count ?? 256) + 256)
        bytes.append(contentsOf: #"{"counter":"#.utf8)
        bytes.appendDecimal(change.counter)
        if let document = change.operation.document {
            bytes.append(contentsOf: #","doc":"#.utf8)
            if let canonicalDocument { bytes.append(contentsOf: canonicalDocument) } else { document.writeCanonical(to: &bytes) }
        }
        bytes.append(contentsOf: #","entity":"#.utf8)
        JSONValue.string(change.key.entity.rawValue).writeCanonical(to: &bytes)
        bytes.append(contentsOf: #","hlc":""#.utf8)
        bytes.appendDecimal(change.timestamp.physical)
        bytes.append(UInt8(ascii: "."))
        bytes.appendDecimal(UInt64(change.timestamp.logical))
        bytes.append(contentsOf: #"","id":"#.utf8)
        JSONValue.string(change.key.id.rawValue).writeCanonical(to: &bytes)
        bytes.append(contentsOf: #","op":""#.utf8)
        bytes.append(contentsOf: change.operation.name.utf8)
        bytes.append(contentsOf: #"","origin":""#.utf8)
        bytes.append(contentsOf: change.origin.rawValue.utf8)
        bytes.append(contentsOf: #"","parent":""#.utf8)
        parent.appendHexDigits(to: &bytes)
        bytes.append(contentsOf: #"","vv":"#.utf8)
        change.version.writeCanonical(to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return SHA256.hash(bytes)
    }
}
