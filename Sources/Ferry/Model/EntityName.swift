/// The name of a kind of record, such as `User` or `Holiday`: a folder under `records/`.
///
/// A valid name is a letter, then letters, digits or `_`, at most 64 characters (ASCII).
///
/// ```swift
/// let users = try EntityName("User")
/// ```
public struct EntityName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The name as written.
    public let rawValue: String

    /// The longest name accepted.
    public static let maximumLength = 64

    /// Validates and wraps a name.
    /// - Throws: ``ValidationError/invalidEntityName(_:reason:)`` when the name breaks the rules.
    public init(_ rawValue: String) throws(ValidationError) {
        let bytes = Array(rawValue.utf8)
        guard let first = bytes.first else {
            throw .invalidEntityName(rawValue, reason: "it is empty")
        }
        guard bytes.count <= Self.maximumLength else {
            throw .invalidEntityName(rawValue, reason: "it is longer than \(Self.maximumLength) characters")
        }
        guard first.isASCIILetter else {
            throw .invalidEntityName(rawValue, reason: "it must start with a letter")
        }
        for byte in bytes where !(byte.isASCIILetter || byte.isASCIIDigit || byte == UInt8(ascii: "_")) {
            throw .invalidEntityName(rawValue, reason: "only letters, digits and _ are allowed")
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func < (lhs: EntityName, rhs: EntityName) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }
}

extension UInt8 {
    var isASCIILetter: Bool { (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A) }
    var isASCIIDigit: Bool { self >= 0x30 && self <= 0x39 }
}
