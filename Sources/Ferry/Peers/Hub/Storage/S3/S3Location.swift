/// A bucket and a key prefix: where an S3 hub keeps its objects (`s3://team-bucket/notes`).
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// The bucket's name.
    public var bucket: String
    /// The prefix of every key, without slashes at either end (empty for the bucket's root).
    public var prefix: String

    /// A location from its parts.
    public init(bucket: String, prefix: String = "") {
        self.bucket = bucket
        self.prefix = prefix.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    /// Reads `s3://bucket/prefix`.
    /// - Throws: ``HubError/invalidLocation(_:reason:)`` when it is not one.
    public init(parsing text: String) throws(HubError) {
        guard text.lowercased().hasPrefix("s3://") else { throw .invalidLocation(text, reason: "it does not start with s3://") }
        let rest = text.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        guard Self.isValidBucket(bucket) else {
            throw .invalidLocation(
                text, reason: "'\(bucket)' is not a bucket name (3 to 63 lowercase letters, digits, dots and hyphens)")
        }
        let prefix = String(rest.dropFirst(bucket.count))
        guard !prefix.contains("//"), !prefix.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            throw .invalidLocation(text, reason: "the prefix has an empty, '.' or '..' part")
        }
        guard prefix.utf8.count <= 512, !prefix.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .invalidLocation(text, reason: "the prefix is too long or holds control characters")
        }
        self.init(bucket: bucket, prefix: prefix)
    }

    /// Whether `name` follows S3's bucket naming rules (the DNS-compatible ones).
    static func isValidBucket(_ name: String) -> Bool {
        guard (3...63).contains(name.count), let first = name.first, let last = name.last,
            first.isLetter || first.isNumber, last.isLetter || last.isNumber
        else { return false }
        return name.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "." || $0 == "-" }
    }

    /// The full key of a hub object.
    public func key(_ relative: String) -> String { prefix.isEmpty ? relative : prefix + "/" + relative }

    public var description: String { prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)" }
}
