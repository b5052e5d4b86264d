import Foundation

extension JSONValue {
    /// Makes the JSON form of any `Encodable` value.
    ///
    /// Dates become ISO 8601 strings in UTC with milliseconds (`"2024-05-01T12:30:00.250Z"`),
    /// `Data` becomes Base64, and numbers keep the ``JSONValue`` rules (an integral `Double`
    /// within ±2^53 becomes an ``integer(_:)``). Encoding a `JSONValue` returns it unchanged.
    ///
    /// ```swift
    /// struct Product: Codable { var name: String; var price: Double; var added: Date }
    /// let value = try JSONValue(encoding: Product(name: "Lamp", price: 12.5, added: .now))
    /// value["added"] // .string("2024-05-01T12:30:00.250Z")
    /// ```
    /// - Parameter value: The value to encode.
    /// - Throws: ``JSONCodingError`` when the value refuses to encode, holds a non-finite
    ///   number, or holds a date outside the years 0001–9999.
    public init<T: Encodable>(encoding value: T) throws(JSONCodingError) {
        if let value = value as? JSONValue {
            self = value
            return
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            guard let text = ISO8601Timestamp.string(from: date) else {
                throw EncodingError.invalidValue(
                    date,
                    EncodingError.Context(
                        codingPath: encoder.codingPath,
                        debugDescription: "\(date) is outside the years 0001–9999"))
            }
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw JSONCodingError(.encoding, T.self, error)
        }
        do {
            self = try JSONParser.parse([UInt8](data), options: .init(maximumDepth: .max, maximumByteCount: .max))
        } catch {
            throw JSONCodingError(
                operation: .encoding, typeName: String(describing: T.self), path: "",
                reason: "the encoder wrote JSON Ferry cannot read: \(error)")
        }
    }

    /// Makes a `Decodable` value from this JSON.
    ///
    /// Dates are read from ISO 8601 strings with or without a fraction of a second, ending in
    /// `Z` or an offset such as `+02:00`. Decoding as `JSONValue` returns the value unchanged.
    ///
    /// ```swift
    /// let product = try value.decode(Product.self)
    /// let same: Product = try value.decode()
    /// ```
    /// - Parameter type: The type to decode; inferred from context when omitted.
    /// - Returns: The decoded value.
    /// - Throws: ``JSONCodingError`` naming the path of the first member that does not fit.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(JSONCodingError) -> T {
        if let value = self as? T { return value }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ISO8601Timestamp.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "expected an ISO 8601 date such as 2024-05-01T12:30:00.250Z, not \(quoted(text))")
            }
            return date
        }
        do {
            return try decoder.decode(T.self, from: Data(canonicalBytes()))
        } catch {
            throw JSONCodingError(.decoding, T.self, error)
        }
    }
}

extension JSONValue: Codable {
    /// Reads whatever JSON value a decoder holds, so models can embed free-form JSON.
    ///
    /// ```swift
    /// struct Event: Codable { var kind: String; var payload: JSONValue }
    /// ```
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` when the decoder's value is none of JSON's kinds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let double = try? container.decode(Double.self) {
            self = .parsedNumber(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else if let members = try? container.decode([String: JSONValue].self) {
            self = .object(members)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a JSON value")
        }
    }

    /// Writes the value through a single-value container.
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws, such as for a non-finite double.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .integer(let integer): try container.encode(integer)
        case .double(let double): try container.encode(double)
        case .string(let string): try container.encode(string)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}
