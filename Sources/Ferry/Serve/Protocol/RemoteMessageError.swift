/// A protocol message (a request body on the server, a response body on the client) that is
/// not what version 1 of the protocol says: not JSON, the wrong shape, or a bad field. The
/// message names the member at fault, such as `changes[3].hlc: must be <milliseconds>.<logical>`.
///
/// ```swift
/// do { _ = try PushRequest(body: bytes) } catch { return .error(.badRequest, error.description) }
/// ```
package struct RemoteMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the member.
    package var reason: String
    /// Whether the message is well formed but claims what cannot be (a change that does not
    /// match its digest): a server answers `422`, not `400`.
    package var isRefusedClaim = false

    /// Makes an error.
    package init(_ reason: String, isRefusedClaim: Bool = false) {
        self.reason = reason
        self.isRefusedClaim = isRefusedClaim
    }

    /// The reason.
    package var description: String { reason }

    /// Parses a JSON body as an object, or says why it is not one.
    static func object(_ bytes: [UInt8], what: String) throws(RemoteMessageError) -> [String: JSONValue] {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: .change) } catch {
            throw RemoteMessageError("\(what) is not JSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw RemoteMessageError("\(what) must be a JSON object, not \(value.kindName == "array" || value.kindName == "object" ? "an" : "a") \(value.kindName)")
        }
        return members
    }

    /// The non-negative integer member `name`, or `nil` when absent.
    static func count(_ members: [String: JSONValue], _ name: String) throws(RemoteMessageError) -> UInt64? {
        guard let value = members[name] else { return nil }
        guard let number = value.integerValue, number >= 0 else {
            throw RemoteMessageError("\(name): must be a non-negative integer")
        }
        return UInt64(number)
    }

    /// Rejects members not in `known`.
    static func rejectUnknown(_ members: [String: JSONValue], known: Set<String>, in what: String) throws(RemoteMessageError) {
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw RemoteMessageError("\(what) has an unknown member \(quoted(unknown))")
        }
    }
}
