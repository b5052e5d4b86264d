/// The bytes of a segment: an immutable object holding changes a replica brought to the hub,
/// of any origin, each origin's in counter order.
///
/// A header line, then one change per line in the journal's canonical JSON (with its digest
/// and parent):
/// ```
/// {"changes":2,"ferry-hub-segment":1,"n":3,"previous":"<hash of segment 2>","replica":"…"}
/// {"counter":7,"digest":"…","doc":{…},"entity":"Note",…}
/// {"counter":8,…}
/// ```
/// Its key ends with the SHA-256 of these bytes, so a copy that is short, long or altered is
/// told from the real one without trusting anything else.
public enum HubSegment {
    /// The segment format.
    public static let format: Int64 = 1
    /// The largest segment a reader accepts.
    public static let maximumByteCount = 256 << 20

    /// Encodes `changes` as segment `number` of `replica`, following the segment with hash `previous`.
    /// - Returns: the bytes and the head's description of them.
    public static func encode(
        _ changes: [Change], replica: ReplicaID, number: UInt64, previous: SHA256Digest
    ) -> (bytes: [UInt8], segment: HubHead.Segment, latest: HybridTimestamp) {
        let header: JSONValue = [
            "ferry-hub-segment": .integer(format), "replica": .string(replica.rawValue), "n": .integer(Int64(number)),
            "previous": .string(previous.hex), "changes": .integer(Int64(changes.count)),
        ]
        var bytes = header.canonicalBytes()
        bytes.append(UInt8(ascii: "\n"))
        var origins: [ReplicaID: HubHead.OriginRange] = [:]
        var latest = HybridTimestamp.zero
        for change in changes {
            change.writeCanonicalJSON(to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
            if var range = origins[change.origin] {
                range.last = max(range.last, change.counter)
                if range.last == change.counter { range.lastDigest = change.digest }
                range.first = min(range.first, change.counter)
                origins[change.origin] = range
            } else {
                origins[change.origin] = HubHead.OriginRange(first: change.counter, last: change.counter, lastDigest: change.digest)
            }
            if change.timestamp > latest { latest = change.timestamp }
        }
        let hash = SHA256.hash(bytes)
        let segment = HubHead.Segment(
            number: number, hash: hash, byteCount: Int64(bytes.count), changeCount: changes.count, origins: origins)
        return (bytes, segment, latest)
    }

    /// Decodes a segment, checking it against the head's description.
    /// - Returns: the changes and the hash of the previous segment the header names.
    /// - Throws: ``HubError/incomplete(location:key:)`` when the bytes do not match the hash (a
    ///   copy not yet complete: the caller treats it as not arrived);
    ///   ``HubError/malformed(location:key:reason:)`` when they do but are not that segment.
    public static func decode(
        _ bytes: [UInt8], expected segment: HubHead.Segment, replica: ReplicaID, key: String, location: String
    ) throws(HubError) -> (changes: [Change], previous: SHA256Digest) {
        func bad(_ reason: String) -> HubError { .malformed(location: location, key: key, reason: reason) }
        var previous = SHA256Digest.zero
        let changes = try HubChangeLines.decode(bytes, hash: segment.hash, count: segment.changeCount, key: key, location: location) {
            header throws(HubError) in
            guard header["ferry-hub-segment"]?.integerValue == format else { throw bad("not a segment of format \(format)") }
            guard header["replica"]?.stringValue == replica.rawValue, header["n"]?.integerValue == Int64(segment.number),
                let previousText = header["previous"]?.stringValue, let named = SHA256Digest(hex: previousText),
                header["changes"]?.integerValue == Int64(segment.changeCount)
            else { throw bad("its header does not match its head") }
            previous = named
        }
        return (changes, previous)
    }
}
