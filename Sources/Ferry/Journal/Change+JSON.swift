/// A change as JSON, with the journal's own field names (`origin`, `counter`, `hlc`, `op`,
/// `entity`, `id`, `doc`, `vv`, and `digest` and `parent` of its ``ChangeChain``) and without the fields that are local to one journal (`seq`,
/// `pseq`, `prev`, `hash`). The journal and the HTTP protocol read and write changes this way.
///
/// ```swift
/// let bytes = change.canonicalJSONBytes()              // {"counter":1,"doc":{…},"entity":"Note",…}
/// let back = try Change(jsonFields: try JSONParser.parse(bytes).objectValue ?? [:])
/// ```
extension JSONParser.Options {
    /// The limits for reading a change's JSON, wherever it comes from (the journal, the
    /// protocol, a hub, a sync's spool file): a document as deep as a store takes (512 levels)
    /// a few levels down, and any size, which whoever read the bytes bounds. The parser's
    /// defaults sit below what a store accepts.
    static let change = JSONParser.Options(maximumDepth: 520, maximumByteCount: Int.max)
}

extension Change {
    /// The members a change's JSON object may have.
    public static let jsonFieldNames: Set<String> = [
        "counter", "digest", "doc", "entity", "hlc", "id", "op", "origin", "parent", "sig", "vv",
    ]

    /// The change as a JSON object.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "origin": .string(origin.rawValue),
            "counter": .integer(Int64(counter)),
            "hlc": .string(timestamp.description),
            "op": .string(operation.name),
            "entity": .string(key.entity.rawValue),
            "id": .string(key.id.rawValue),
            "vv": version.jsonValue,
        ]
        if let document = operation.document { members["doc"] = document }
        if let chain {
            members["digest"] = .string(chain.digest.hex)
            members["parent"] = .string(chain.parent.hex)
            if let seal = chain.seal { members["sig"] = .string(seal.text) }
        }
        return .object(members)
    }

    /// Appends the canonical bytes of ``jsonValue`` (keys sorted, no whitespace) to `output`,
    /// without building the object.
    public func writeCanonicalJSON(to output: inout [UInt8]) {
        output.append(contentsOf: #"{"counter":"#.utf8)
        output.append(contentsOf: String(counter).utf8)
        if let chain {
            output.append(contentsOf: #","digest":""#.utf8)
            chain.digest.appendHexDigits(to: &output)
            output.append(UInt8(ascii: "\""))
        }
        if let document = operation.document {
            output.append(contentsOf: #","doc":"#.utf8)
            document.writeCanonical(to: &output)
        }
        output.append(contentsOf: #","entity":"#.utf8)
        JSONValue.string(key.entity.rawValue).writeCanonical(to: &output)
        output.append(contentsOf: #","hlc":""#.utf8)
        output.append(contentsOf: timestamp.description.utf8)
        output.append(contentsOf: #"","id":"#.utf8)
        JSONValue.string(key.id.rawValue).writeCanonical(to: &output)
        output.append(contentsOf: #","op":""#.utf8)
        output.append(contentsOf: operation.name.utf8)
        output.append(contentsOf: #"","origin":""#.utf8)
        output.append(contentsOf: origin.rawValue.utf8)
        if let chain {
            output.append(contentsOf: #"","parent":""#.utf8)
            chain.parent.appendHexDigits(to: &output)
            if let seal = chain.seal {
                output.append(contentsOf: #"","sig":""#.utf8)
                output.append(contentsOf: seal.textBytes)
            }
        }
        output.append(contentsOf: #"","vv":"#.utf8)
        version.jsonValue.writeCanonical(to: &output)
        output.append(UInt8(ascii: "}"))
    }

    /// The canonical bytes of ``jsonValue``.
    public func canonicalJSONBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        writeCanonicalJSON(to: &bytes)
        return bytes
    }

    /// Reads a change from the members of its JSON object, checking every field. Members
    /// other than ``jsonFieldNames`` are left to the caller (the journal allows its own).
    ///
    /// - Throws: ``ChangeDecodingError`` naming the first field that is wrong.
    public init(jsonFields fields: [String: JSONValue]) throws(ChangeDecodingError) {
        func string(_ name: String) throws(ChangeDecodingError) -> String {
            guard let text = fields[name]?.stringValue else { throw ChangeDecodingError(field: name, "must be a string") }
            return text
        }
        guard let counterValue = fields["counter"]?.integerValue, counterValue > 0 else {
            throw ChangeDecodingError(field: "counter", "must be a positive integer")
        }
        guard let origin = ReplicaID(try string("origin")) else {
            throw ChangeDecodingError(field: "origin", "must be a replica UUID")
        }
        guard let timestamp = HybridTimestamp(try string("hlc")) else {
            throw ChangeDecodingError(field: "hlc", "must be <milliseconds>.<logical>")
        }
        let entityText = try string("entity")
        let idText = try string("id")
        let entity: EntityName
        let id: RecordID
        do { entity = try EntityName(entityText) } catch { throw ChangeDecodingError(field: "entity", error.description) }
        do { id = try RecordID(idText) } catch { throw ChangeDecodingError(field: "id", error.description) }
        let operation: Operation
        switch try string("op") {
        case "put":
            guard let document = fields["doc"], case .object = document else {
                throw ChangeDecodingError(field: "doc", "a put needs \"doc\", a JSON object")
            }
            operation = .put(document)
        case "delete":
            guard fields["doc"] == nil else { throw ChangeDecodingError(field: "doc", "a delete has no \"doc\"") }
            operation = .delete
        case let other:
            throw ChangeDecodingError(field: "op", "must be \"put\" or \"delete\", not \(quoted(other))")
        }
        guard let vvValue = fields["vv"], let version = VersionVector(json: vvValue) else {
            throw ChangeDecodingError(field: "vv", "must map replica UUIDs to positive counters")
        }
        let counter = UInt64(counterValue)
        guard version[origin] == counter else {
            throw ChangeDecodingError(field: "vv", "must hold the change's own origin and counter")
        }
        var chain: ChangeChain?
        switch (fields["digest"], fields["parent"]) {
        case (nil, nil):
            guard fields["sig"] == nil else { throw ChangeDecodingError(field: "sig", "must come with \"digest\" and \"parent\"") }
            chain = nil
        case (let digestValue?, let parentValue?):
            guard let text = digestValue.stringValue, let digest = SHA256Digest(hex: text) else {
                throw ChangeDecodingError(field: "digest", "must be 64 hex digits")
            }
            guard let text = parentValue.stringValue, let parent = SHA256Digest(hex: text) else {
                throw ChangeDecodingError(field: "parent", "must be 64 hex digits")
            }
            var seal: ChangeSeal?
            if let sealValue = fields["sig"] {
                guard let text = sealValue.stringValue, let read = ChangeSeal(text: text) else {
                    throw ChangeDecodingError(field: "sig", "must be 192 hex digits: a public key and an Ed25519 signature")
                }
                seal = read
            }
            chain = ChangeChain(parent: parent, digest: digest, seal: seal)
        case (nil, _):
            throw ChangeDecodingError(field: "digest", "must come with \"parent\"")
        case (_, nil):
            throw ChangeDecodingError(field: "parent", "must come with \"digest\"")
        }
        self.init(
            origin: origin, counter: counter, timestamp: timestamp, key: RecordKey(entity: entity, id: id),
            operation: operation, version: version, chain: chain)
    }
}

/// Why a JSON object is not a valid change: the field and what is wrong with it.
///
/// ```swift
/// do { _ = try Change(jsonFields: fields) } catch { print(error) }   // "hlc: must be <milliseconds>.<logical>"
/// ```
public struct ChangeDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The member at fault, such as `hlc`; `nil` when the problem is the object as a whole.
    public var field: String?
    /// What is wrong with it.
    public var reason: String

    /// Makes an error about `field`.
    public init(field: String?, _ reason: String) {
        self.field = field
        self.reason = reason
    }

    /// `field: reason`, or the reason alone.
    public var description: String { field.map { "\($0): \(reason)" } ?? reason }
}
