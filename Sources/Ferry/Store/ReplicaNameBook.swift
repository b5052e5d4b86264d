import Foundation

/// `.ferry/names.json`: the names of replicas this store heard of from its peers, so that a
/// name given once (`ferry init phone --name phone`) reaches every replica, through any number
/// of folders, hubs and servers in between.
///
/// A name is kept as it was first heard: a later claim for the same replica does not rename
/// it (any peer may relay anything, and a log should not change under its reader). What a
/// replica says of itself when it syncs directly is kept in its checkpoint, and wins (see
/// ``Store/replicaNames()``).
///
/// ```json
/// {"names": {"6b1c…": "phone", "f3a3…": "laptop"}}
/// ```
public struct ReplicaNameBook: Sendable, Hashable {
    /// The most names a book keeps, and the longest name: a peer cannot grow it without bound.
    public static let capacity = 10_000
    public static let longestName = 64

    /// Replica → name.
    public private(set) var names: [ReplicaID: String]

    public init(_ names: [ReplicaID: String] = [:]) {
        self.names = [:]
        _ = learn(names)
    }

    /// Adds the names of replicas it has none for, in order of their ids; names that are empty,
    /// too long or span lines are left out.
    /// - Returns: whether anything was added.
    public mutating func learn(_ heard: [ReplicaID: String]) -> Bool {
        var added = false
        for (replica, name) in heard.sorted(by: { $0.key < $1.key }) where names[replica] == nil && names.count < Self.capacity {
            guard Self.isAcceptable(name) else { continue }
            names[replica] = name
            added = true
        }
        return added
    }

    /// Whether `name` may be a replica's name: 1 to 64 characters on one line.
    public static func isAcceptable(_ name: String) -> Bool {
        !name.isEmpty && name.count <= longestName && !name.contains(where: { $0.isNewline || $0 == "\t" })
    }

    /// The book as JSON.
    public var jsonValue: JSONValue {
        ["names": Self.json(names)]
    }

    /// Names in a JSON object of replica ids (a hub head's or a server's `names`); members that
    /// are not a replica id and a name are left out.
    public static func names(in value: JSONValue?) -> [ReplicaID: String] {
        var names: [ReplicaID: String] = [:]
        for (key, member) in value?.objectValue ?? [:] {
            if let replica = ReplicaID(key), let name = member.stringValue, isAcceptable(name) { names[replica] = name }
        }
        return names
    }

    /// Names as a JSON object of replica ids.
    public static func json(_ names: [ReplicaID: String]) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: names.map { ($0.key.rawValue, JSONValue.string($0.value)) }))
    }

    /// The store's book; empty when it has none.
    /// - Throws: ``StoreError/coding(_:)`` when the file is not a book (it is then written anew
    ///   by the next ``Store/learnReplicaNames(_:)``: every name in it is heard again from the
    ///   peers that passed it on).
    public static func load(from layout: StoreLayout) throws(StoreError) -> ReplicaNameBook {
        let path = layout.replicaNames
        guard FileSystem.exists(path) else { return ReplicaNameBook() }
        do {
            let value = try JSONParser.parse(try FileSystem.readFile(path, limit: 4 << 20))
            guard value["names"]?.objectValue != nil else { throw StoreError.coding("\(path): no \"names\" object") }
            return ReplicaNameBook(names(in: value["names"]))
        } catch let error as StoreError {
            throw error
        } catch {
            throw .coding("\(path): \(error)")
        }
    }

    /// Serializes read-learn-write of every store's book in this process (`ferry serve` takes
    /// checkpoints on several threads).
    private static let writing = NSLock()

    /// Adds `heard` to the book of the store at `layout`, written atomically when it grew.
    static func learn(_ heard: [ReplicaID: String], except own: ReplicaID, in layout: StoreLayout) throws(StoreError) {
        var heard = heard
        heard[own] = nil
        guard !heard.isEmpty else { return }
        writing.lock()
        defer { writing.unlock() }
        // A damaged book is written anew: its names are heard again from the peers.
        var book = (try? load(from: layout)) ?? ReplicaNameBook()
        guard book.learn(heard) else { return }
        do { try FileSystem.writeFileAtomically(layout.replicaNames, book.jsonValue.prettyBytes(), durable: false) } catch {
            throw .io(error)
        }
    }
}

extension Store {
    /// Keeps the names of replicas that `heard` names and this store had none for (see
    /// ``ReplicaNameBook``); this store's own name is never taken from a peer.
    public func learnReplicaNames(_ heard: [ReplicaID: String]) throws(StoreError) {
        try ReplicaNameBook.learn(heard, except: replicaID, in: layout)
    }

    /// Every name this store knows, its own included: what it passes on to its peers.
    public var knownReplicaNames: [ReplicaID: String] { replicaNames().names }
}
