/// Why a Swift value could not be turned into a ``JSONValue``, or a ``JSONValue`` into one.
///
/// Thrown by ``JSONValue/init(encoding:)`` and ``JSONValue/decode(_:)`` in place of Foundation's
/// `EncodingError` and `DecodingError`, with the failing path spelled as it would be in
/// JavaScript (`items[2].price`).
///
/// ```swift
/// do {
///     let product: Product = try value.decode()
/// } catch {
///     print(error) // cannot decode Product at items[2].price: expected Double, found a string
/// }
/// ```
public struct JSONCodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which direction failed.
    public enum Operation: String, Sendable, Equatable {
        /// A Swift value was being turned into JSON.
        case encoding = "encode"
        /// JSON was being turned into a Swift value.
        case decoding = "decode"
    }

    /// Which direction failed.
    public let operation: Operation
    /// The name of the type being encoded or decoded, such as `Product`.
    public let typeName: String
    /// Where in the value the problem is, such as `items[2].price`; empty for the top level.
    public let path: String
    /// What is wrong.
    public let reason: String

    /// Makes an error.
    /// - Parameters:
    ///   - operation: Which direction failed.
    ///   - typeName: The name of the type being encoded or decoded.
    ///   - path: Where in the value the problem is, or `""` for the top level.
    ///   - reason: What is wrong.
    public init(operation: Operation, typeName: String, path: String, reason: String) {
        self.operation = operation
        self.typeName = typeName
        self.path = path
        self.reason = reason
    }

    /// `cannot decode Product at items[2].price: …`.
    public var description: String {
        "cannot \(operation.rawValue) \(typeName)\(path.isEmpty ? "" : " at \(path)"): \(reason)"
    }
}

extension JSONCodingError {
    /// Translates an error thrown during encoding or decoding.
    init(_ operation: Operation, _ type: Any.Type, _ error: any Error) {
        let typeName = String(describing: type)
        switch error {
        case let error as JSONCodingError:
            self = error
        case EncodingError.invalidValue(_, let context):
            self.init(operation: operation, typeName: typeName, path: Self.path(context.codingPath),
                      reason: Self.reason(context.debugDescription, context.underlyingError))
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            self.init(operation: operation, typeName: typeName, path: Self.path(context.codingPath),
                      reason: Self.reason(context.debugDescription, context.underlyingError))
        case DecodingError.keyNotFound(let key, let context):
            self.init(operation: operation, typeName: typeName, path: Self.path(context.codingPath),
                      reason: "missing key \(quoted(key.stringValue))")
        default:
            self.init(operation: operation, typeName: typeName, path: "", reason: String(describing: error))
        }
    }

    /// `items[2].price` for the keys `items`, index 2, `price`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return path
    }

    private static func reason(_ description: String, _ underlying: (any Error)?) -> String {
        guard let underlying else { return description }
        return "\(description) (\(underlying))"
    }
}
