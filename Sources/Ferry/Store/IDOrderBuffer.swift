/// Puts records met in sort-key order (by encoded id, as the index image and its delta are
/// sorted) into id order (by the ids' UTF-8 bytes, as `ferry list` prints them), holding back
/// only the records that the image meets before their turn.
///
/// The encoding (``RecordFileName``) keeps the order of the bytes it writes as themselves
/// (`a`–`z`, `0`–`9`, `-`, `_`, `.`) and of upper-case letters (`^` and the letter), but writes
/// every other byte as `%XX`, and `%` sorts before all of those. So the two orders differ only
/// where an id has an escaped byte above `-` (`/`, `:`, `@`, `.` first, any non-ASCII byte…):
/// such an id sorts early, before ids it follows. Everything else is met in its turn.
///
/// Met in sort-key order after an id `r`, an id is at least ``leastFollower(of:)``: `r` cut at
/// its first escaped byte above `-`, followed by `-` (or `r` itself when it has no such byte).
/// So, as each record arrives, the held ones below that bound can go out, and a record with no
/// such byte goes out at once.
///
/// ```swift
/// var buffer = IDOrderBuffer<Void>()
/// for id in idsInSortKeyOrder { buffer.add(id, ()) { id, _ in print(id); return true } }
/// buffer.finish { id, _ in print(id); return true }
/// ```
///
/// Memory is the held records: none for ids that encode to themselves, a few for ids with an
/// occasional `:` or non-ASCII letter; but an entity whose ids nearly all start alike and then
/// differ after such a byte (`order:1`, `order:2`, …, or ids in a non-Latin script) is held
/// almost whole, ids only, until its records end.
struct IDOrderBuffer<Payload> {
    /// Held records that arrived in id order (the common case: ids that differ after their
    /// early-sorting byte only in plain ones, `order:1`, `order:2`, …): a queue, oldest first.
    private var inOrder = HeldQueue<Payload>()
    /// Held records that arrived out of id order.
    private var outOfOrder = MinimumHeap<Payload>()

    /// How many records are held back.
    var heldCount: Int { inOrder.count + outOfOrder.count }

    /// Takes the next record in sort-key order; hands `emit` every record whose turn has come,
    /// in id order. Returns `false` when `emit` did (and stops).
    /// - Parameter keeping: what to hold of `payload` when it is held back (a copy that does
    ///   not share a larger buffer, say).
    mutating func add<E: Error>(
        _ id: RecordID, _ payload: Payload, keeping: (Payload) -> Payload = { $0 },
        emit: (RecordID, Payload) throws(E) -> Bool
    ) throws(E) -> Bool {
        guard let bound = Self.leastFollower(of: id) else {
            guard try release(below: id, emit: emit) else { return false }
            return try emit(id, payload)
        }
        let boundID = RecordID(unchecked: String(decoding: bound, as: UTF8.self))
        guard try release(below: boundID, emit: emit) else { return false }
        if let last = inOrder.lastID, !Self.precedes(last, id) {
            outOfOrder.insert(id, keeping(payload))
        } else {
            inOrder.append(id, keeping(payload))
        }
        return true
    }

    /// Hands `emit` the records still held, in id order (after the last record was added).
    mutating func finish<E: Error>(emit: (RecordID, Payload) throws(E) -> Bool) throws(E) -> Bool {
        while let (id, payload) = removeLeast() {
            guard try emit(id, payload) else { return false }
        }
        return true
    }

    private mutating func release<E: Error>(below bound: RecordID, emit: (RecordID, Payload) throws(E) -> Bool) throws(E) -> Bool {
        while let least = leastID, Self.precedes(least, bound) {
            guard let (id, payload) = removeLeast() else { break }
            guard try emit(id, payload) else { return false }
        }
        return true
    }

    private var leastID: RecordID? {
        guard let queued = inOrder.firstID else { return outOfOrder.minimumID }
        guard let heaped = outOfOrder.minimumID else { return queued }
        return Self.precedes(heaped, queued) ? heaped : queued
    }

    private mutating func removeLeast() -> (RecordID, Payload)? {
        guard let queued = inOrder.firstID else { return outOfOrder.removeMinimum() }
        if let heaped = outOfOrder.minimumID, Self.precedes(heaped, queued) { return outOfOrder.removeMinimum() }
        return inOrder.removeFirst()
    }

    /// Whether `a` sorts before `b` by UTF-8 bytes (``RecordID``'s order), with `memcmp`.
    static func precedes(_ a: RecordID, _ b: RecordID) -> Bool {
        let fast = a.rawValue.utf8.withContiguousStorageIfAvailable { left in
            b.rawValue.utf8.withContiguousStorageIfAvailable { right in ByteOrder.compare(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right)) < 0 }
        }
        if let fast, let answer = fast { return answer }
        return a < b
    }

    /// The least id (as bytes) that a record met after `id` in sort-key order can have, when
    /// it is less than `id`; `nil` when every record met after `id` has a greater id.
    static func leastFollower(of id: RecordID) -> [UInt8]? {
        var position = 0
        for byte in id.rawValue.utf8 {
            if byte > UInt8(ascii: "-") && RecordFileName.isEscaped(byte, first: position == 0) {
                var bound = Array(id.rawValue.utf8.prefix(position))
                bound.append(UInt8(ascii: "-"))
                return bound
            }
            position += 1
        }
        return nil
    }
}

/// Held records in the order they came, for ``IDOrderBuffer``: a queue on an array.
private struct HeldQueue<Payload> {
    private var items: [(id: RecordID, payload: Payload)] = []
    private var front = 0

    var count: Int { items.count - front }
    var firstID: RecordID? { front < items.count ? items[front].id : nil }
    var lastID: RecordID? { front < items.count ? items[items.count - 1].id : nil }

    mutating func append(_ id: RecordID, _ payload: Payload) {
        items.append((id, payload))
    }

    mutating func removeFirst() -> (RecordID, Payload)? {
        guard front < items.count else { return nil }
        let item = items[front]
        front += 1
        if front == items.count {
            items.removeAll(keepingCapacity: true)
            front = 0
        } else if front >= 4096 && front * 2 >= items.count {
            items.removeFirst(front)
            front = 0
        }
        return (item.id, item.payload)
    }
}

/// A binary min-heap of records by id, for ``IDOrderBuffer``.
private struct MinimumHeap<Payload> {
    private var items: [(id: RecordID, payload: Payload)] = []

    var count: Int { items.count }
    var minimumID: RecordID? { items.first?.id }

    mutating func insert(_ id: RecordID, _ payload: Payload) {
        items.append((id, payload))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard IDOrderBuffer<Payload>.precedes(items[child].id, items[parent].id) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeMinimum() -> (RecordID, Payload)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        guard let last = items.popLast() else { return nil }
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var least = parent
            if left < items.count && IDOrderBuffer<Payload>.precedes(items[left].id, items[least].id) { least = left }
            if right < items.count && IDOrderBuffer<Payload>.precedes(items[right].id, items[least].id) { least = right }
            if least == parent { break }
            items.swapAt(parent, least)
            parent = least
        }
        return (last.id, last.payload)
    }
}
