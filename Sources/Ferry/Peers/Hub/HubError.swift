/// What can go wrong with a hub: each case names the location, and the object when one is concerned.
public enum HubError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The location exists but holds no hub: never silently made into a new one.
    case noHub(location: String)
    /// The hub's folder (or the folder above it) is missing: an unmounted drive, a typo.
    case missingRoot(location: String)
    /// The hub was written by a newer Ferry.
    case unsupportedFormat(location: String, found: Int64)
    /// `hub init` on a location that already holds a hub.
    case alreadyExists(location: String)
    /// `hub init` on a location that holds something other than a hub.
    case notEmpty(location: String, example: String)
    /// An object the hub depends on could not be read as what it should be.
    case malformed(location: String, key: String, reason: String)
    /// An object whose bytes do not match the hash that names it: not fully arrived yet (a
    /// cloud drive still copying it), or altered since it was written.
    case incomplete(location: String, key: String)
    /// Another writer uses this replica's head: the store folder was copied.
    case foreignHeadWrite(location: String, replica: ReplicaID)
    /// A snapshot that cannot be tied to a signed statement of a trusted writer, or whose
    /// versions are not what that statement says: nothing was joined from it.
    case snapshotRefused(location: String, key: String, reason: String)
    /// An object written by a replica that is not a member of the hub (see ``HubMembers``):
    /// nothing was taken from the hub.
    case notAMember(location: String, replica: ReplicaID, key: String)
    /// `ferry hub members add|remove` refused: one line why; the list was left as it was.
    case membersRefused(location: String, reason: String)
    /// An encrypted hub this store cannot open or write: no key that unwraps its data keys (a
    /// wrong passphrase, a store that is not a member), or an object sealed under keys it lacks.
    case locked(location: String, reason: String)
    /// The storage refused or failed a request (one line: bucket, key, status, code).
    case storage(String)
    /// `hub compact` stopped before deleting anything: a head it could not read, a segment
    /// not fully arrived, an object that vanished while it worked.
    case cannotCompact(location: String, reason: String)
    /// A location that cannot name a hub (`s3://` with a bad bucket name).
    case invalidLocation(String, reason: String)
    /// No credentials were given or found for an S3 hub.
    case missingCredentials(String)

    public var description: String {
        switch self {
        case .noHub(let location):
            return "\(location) holds no Ferry hub (an empty prefix, a wrong folder or a typo?); create one with 'ferry hub init \(location)'"
        case .missingRoot(let location):
            return "\(location) does not exist (is the drive mounted, or the cloud-drive folder synced?); nothing was changed, sync again once it is back"
        case .unsupportedFormat(let location, let found):
            return "\(location) is a hub of format \(found), which this ferry cannot read (it reads formats 1 and \(HubDescriptor.encryptedFormat)); update ferry"
        case .alreadyExists(let location):
            return "\(location) already holds a Ferry hub"
        case .notEmpty(let location, let example):
            return "\(location) already holds other things (\(example)); a hub needs an empty folder or prefix of its own"
        case .malformed(let location, let key, let reason):
            return "\(location): \(key) is not a valid hub object: \(reason)"
        case .incomplete(let location, let key):
            return "\(location): \(key) does not match its hash (incomplete or altered)"
        case .foreignHeadWrite(let location, let replica):
            return "\(location): the head of replica \(replica.short) was written by someone else since this store last wrote it: "
                + "this store folder was copied (run 'ferry reidentify' on the copy)"
        case .snapshotRefused(let location, let key, let reason):
            return "\(location): refused snapshot \(key): \(reason); nothing was taken from it (run 'ferry verify \(location)')"
        case .notAMember(let location, let replica, let key):
            return "\(location): \(key) was written by replica \(replica), which is not a member of this hub; nothing was taken "
                + "from the hub. If that replica is one of yours, add it ('ferry hub members add \(location) \(replica)' from a "
                + "member's store) or sync once with --trust-new"
        case .membersRefused(let location, let reason):
            return "\(location): \(reason); the hub's members were left as they were"
        case .cannotCompact(let location, let reason):
            return "cannot compact \(location): \(reason); nothing was deleted"
        case .locked(let location, let reason):
            return "\(location): \(reason); nothing was changed"
        case .storage(let message):
            return message
        case .invalidLocation(let text, let reason):
            return "\(text) is not a hub location: \(reason)"
        case .missingCredentials(let message):
            return message
        }
    }
}
