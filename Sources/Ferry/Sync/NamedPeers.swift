/// `.ferry/remotes.json`: the peers a store syncs with by name (`ferry remote add phone
/// /media/usb/phone --policy merge`), with the sync options to use with each. No credential is
/// ever kept here: a location with a user or password in it is refused before it gets here,
/// and tokens and passwords come from the environment or a credential file at sync time.
///
/// ```json
/// {"remotes": {"kitchen": {"location": "pocketbase+http://127.0.0.1:8090", "options": {"entities": "Note"}}}}
/// ```
///
/// ```swift
/// var peers = try NamedPeers.load(from: store.layout)
/// try peers.add(NamedPeers.Peer(name: "usb", location: "/media/usb/data"))
/// try peers.save(to: store.layout)
/// ```
public struct NamedPeers: Sendable, Hashable {
    /// One named peer.
    public struct Peer: Sendable, Hashable {
        /// What the user calls it: letters, digits, `.`, `_` and `-`, starting with a letter or
        /// a digit (so a name is never a path or a URL).
        public var name: String
        /// Where it is, as ``PeerAddress/parse(_:token:resolvingFolder:)`` reads it (a folder's
        /// path made absolute).
        public var location: String
        /// The sync options to use with it, by option name without dashes (`policy`,
        /// `entities`); a flag's value is `true`.
        public var options: [String: JSONValue]

        public init(name: String, location: String, options: [String: JSONValue] = [:]) {
            self.name = name
            self.location = location
            self.options = options
        }

        var jsonValue: JSONValue { ["location": .string(location), "options": .object(options)] }
    }

    /// The peers, by name.
    public private(set) var peers: [String: Peer] = [:]

    public init() {}

    /// The peers in the order `ferry sync` takes them: by name.
    public var sorted: [Peer] { peers.values.sorted { $0.name < $1.name } }

    /// Whether `text` may name a peer: 1 to 64 letters, digits, `.`, `_` or `-`, the first a
    /// letter or a digit.
    public static func isValidName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.unicodeScalars.count <= 64 else { return false }
        func allowed(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar))
        }
        return allowed(first) && text.unicodeScalars.allSatisfy { allowed($0) || "._-".unicodeScalars.contains($0) }
    }

    /// Adds a peer, or replaces the one of that name.
    public mutating func add(_ peer: Peer) { peers[peer.name] = peer }

    /// Removes a peer; returns it, or `nil` when there was none of that name.
    @discardableResult
    public mutating func remove(named name: String) -> Peer? { peers.removeValue(forKey: name) }

    /// The peers as JSON.
    public var jsonValue: JSONValue {
        ["remotes": .object(Dictionary(uniqueKeysWithValues: peers.map { ($0.key, $0.value.jsonValue) }))]
    }

    /// The store's named peers; none when it has no file.
    /// - Throws: ``StoreError/coding(_:)`` naming the file and what is wrong with it.
    public static func load(from layout: StoreLayout) throws(StoreError) -> NamedPeers {
        let path = layout.namedPeers
        guard FileSystem.exists(path) else { return NamedPeers() }
        let value: JSONValue
        do { value = try JSONParser.parse(try FileSystem.readFile(path, limit: 1 << 20)) } catch { throw .coding("\(path): \(error)") }
        guard let members = value["remotes"]?.objectValue else { throw .coding("\(path): no \"remotes\" object") }
        var result = NamedPeers()
        for (name, item) in members {
            guard isValidName(name), let location = item["location"]?.stringValue else {
                throw .coding("\(path): the peer \"\(name)\" needs a valid name and a \"location\" string")
            }
            result.add(Peer(name: name, location: location, options: item["options"]?.objectValue ?? [:]))
        }
        return result
    }

    /// Writes the file durably (a temporary file, fsync, rename), so an acknowledged
    /// `remote add` survives a crash.
    public func save(to layout: StoreLayout) throws(StoreError) {
        do { try FileSystem.writeFileAtomically(layout.namedPeers, jsonValue.prettyBytes(), durable: true) } catch { throw .io(error) }
    }
}

extension Store {
    /// Changes the store's named peers under its write lock (so two `ferry remote add` at once
    /// both count): read, changed by `change`, and written durably when it changed them.
    ///
    /// ```swift
    /// let replaced = try store.updateNamedPeers { peers in peers.add(usb) }
    /// ```
    public func updateNamedPeers<T>(_ change: (inout NamedPeers) -> T) throws(StoreError) -> T {
        try withWriteLock { () throws(StoreError) -> T in
            var peers = try NamedPeers.load(from: layout)
            let before = peers
            let result = change(&peers)
            if peers != before { try peers.save(to: layout) }
            return result
        }
    }
}
