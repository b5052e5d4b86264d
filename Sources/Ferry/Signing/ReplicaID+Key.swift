extension ReplicaID {
    /// The id of the replica whose signing key is `key`: a version 8 UUID (RFC 9562) made of
    /// the first 16 bytes of SHA-256(`ferry-replica-v1:` ‖ key), with its version and variant
    /// bits set. Such an id speaks for its key: a change or head that claims it and is signed
    /// by any other key is a forgery, whoever got there first.
    public init(derivedFrom key: ReplicaPublicKey) {
        var bytes = SHA256.hash(Array("ferry-replica-v1:".utf8) + key.rawRepresentation).bytes
        bytes[6] = (bytes[6] & 0x0f) | 0x80
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let hex = Array(HexText.string(bytes.prefix(16)).utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (offset, digit) in hex.enumerated() {
            if offset == 8 || offset == 12 || offset == 16 || offset == 20 { text.append(UInt8(ascii: "-")) }
            text.append(digit)
        }
        self.init(uncheckedLowercase: String(decoding: text, as: UTF8.self))
    }

    /// Whether the id is derived from a key (a version 8 UUID): a replica made since changes
    /// are signed, whose every change must carry its key's signature. Older ids (random,
    /// version 4) were made before, and are tied to a key when their first signed change arrives.
    public var isKeyDerived: Bool {
        let utf8 = rawValue.utf8
        return utf8.count == 36 && utf8[utf8.index(utf8.startIndex, offsetBy: 14)] == UInt8(ascii: "8")
    }

    /// Whether `key` is the key this id was derived from.
    public func isDerived(from key: ReplicaPublicKey) -> Bool {
        ReplicaID(derivedFrom: key) == self
    }
}
