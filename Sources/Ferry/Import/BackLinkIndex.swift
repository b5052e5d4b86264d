/// For each parent, the live records of an entity whose to-one link member names it: the
/// children of a derived to-many (one whose links are stored only on the children's side,
/// `Note.userID` for `User.notes`), read from the store once per entity and member.
///
/// It is built from the records' documents as the store holds them when first asked, keeping
/// only the ids (not the documents), and shared by the parts of a streamed import: a part reads
/// only the buckets of its own parents, which no other part changes (``ImportTouchLedger``).
final class BackLinkIndex {
    /// The children of one parent through one link member: what a part reads of the index.
    struct Bucket: Hashable {
        /// The children's entity.
        var entity: EntityName
        /// The member of theirs that holds the parent's id (`userID`).
        var member: String
        var parent: RecordID
    }

    private struct Member: Hashable {
        var entity: EntityName
        var member: String
    }

    let store: Store
    private var indexes: [Member: [String: [RecordID]]] = [:]

    init(store: Store) {
        self.store = store
    }

    /// The live records of `entity` whose `member` names `parent`, in id order, as the store
    /// held them when the index of `entity` and `member` was built.
    func children(of parent: RecordID, in entity: EntityName, member: String) throws(ImportError) -> [RecordID] {
        let key = Member(entity: entity, member: member)
        if let index = indexes[key] { return index[parent.rawValue] ?? [] }
        var index: [String: [RecordID]] = [:]
        for id in store.index.records.liveIDs(of: entity).sorted() {
            let recordKey = RecordKey(entity: entity, id: id)
            guard let state = store.index.records[recordKey], state.isLive else { continue }
            let document: JSONValue
            do { document = try store.currentDocument(recordKey, state: state) } catch { throw .store(error) }
            guard let parent = document.objectValue?[member].flatMap(ImportBatch.linkID) else { continue }
            index[parent.rawValue, default: []].append(id)
        }
        indexes[key] = index
        return index[parent.rawValue] ?? []
    }
}
