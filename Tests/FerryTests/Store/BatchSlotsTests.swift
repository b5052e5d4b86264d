import Testing

@testable import Ferry

/// A batch numbers its distinct records once; every later step finds a write's record by slot.
@Suite struct BatchSlotsTests {
    @Test func recordsAreNumberedInTheOrderTheyFirstAppear() throws {
        let item = try EntityName("Item")
        let note = try EntityName("Note")
        func key(_ entity: EntityName, _ id: String) throws -> RecordKey { RecordKey(entity: entity, id: try RecordID(id)) }
        let writes: [RecordWrite] = [
            .put(try key(item, "a"), [:]), .put(try key(item, "b"), [:]), .delete(try key(item, "a")),
            .put(try key(note, "a"), [:]), .put(try key(item, "A"), [:]), .put(try key(item, "b"), ["v": 2]),
        ]
        let slots = BatchSlots(writes)
        #expect(slots.ofWrite == [0, 1, 0, 2, 3, 1])
        #expect(slots.count == 4)
        #expect(slots.slot(of: try key(note, "a")) == 2)
        #expect(slots.slot(of: try key(item, "A")) == 3)
        #expect(slots.slot(of: try key(note, "b")) == nil)
        #expect(BatchSlots([]).count == 0)
    }
}
