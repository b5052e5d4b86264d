/// The stable rule between Ferry record ids, which may be any string, and PocketBase record
/// ids, which are 15 characters of `[a-z0-9]`:
///
/// - a Ferry id that already is 15 characters of `[a-z0-9]` is the PocketBase id as it is (so a
///   record another client created keeps its id both ways);
/// - any other Ferry id maps to `f` followed by 14 base-36 digits of the SHA-256 of
///   `ferry-id:` and the id's UTF-8 bytes (72 bits of it), and the record carries the Ferry
///   id in its `ferry_id` field.
///
/// Back the other way, a record's Ferry id is its `ferry_id` when that is set, else its
/// PocketBase id.
///
/// ```swift
/// PocketBaseRecordID.backendID(for: "abc123def456ghi")   // "abc123def456ghi"
/// PocketBaseRecordID.backendID(for: "note-1")            // "f" + 14 characters, always the same
/// ```
public enum PocketBaseRecordID {
    /// The length of PocketBase's ids.
    public static let length = 15

    /// Whether `text` is shaped like a PocketBase id: 15 characters of `[a-z0-9]`.
    public static func isBackendShaped(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == length && bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }

    /// The PocketBase id of the record whose Ferry id is `ferryID`.
    public static func backendID(for ferryID: String) -> String {
        if isBackendShaped(ferryID) { return ferryID }
        let digest = SHA256.hash(Array("ferry-id:".utf8) + Array(ferryID.utf8)).bytes
        // 72 bits, as 14 base-36 digits (36^14 > 2^72), most significant first.
        var high = UInt64(digest[0])
        var low: UInt64 = 0
        for byte in digest[1..<9] { low = low << 8 | UInt64(byte) }
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        var digits: [UInt8] = []
        for _ in 0..<14 {
            // Divide the 72-bit number (high:low) by 36.
            let highQuotient = high / 36
            let highRemainder = high % 36
            let (lowQuotient, remainder) = UInt64(36).dividingFullWidth((high: highRemainder, low: low))
            high = highQuotient
            low = lowQuotient
            digits.append(alphabet[Int(remainder)])
        }
        return "f" + String(decoding: digits.reversed(), as: UTF8.self)
    }

    /// The Ferry id of a record PocketBase holds.
    public static func ferryID(backendID: String, ferryIDField: String?) -> String {
        if let ferryIDField, !ferryIDField.isEmpty { return ferryIDField }
        return backendID
    }
}
