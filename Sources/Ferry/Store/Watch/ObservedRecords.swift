#if canImport(Observation)
import Observation

/// An entity's records for a SwiftUI view: ``records`` follows ``Store/observe(_:where:)``
/// through Observation, so a view that reads it is drawn again each time they change.
///
/// ```swift
/// struct NotesView: View {
///     @State private var notes = ObservedRecords(store: store, entity: EntityName("Note"))
///     var body: some View {
///         List(notes.records, id: \.id) { note in Text(note.document["title"]?.stringValue ?? "") }
///     }
/// }
/// ```
///
/// The store is read off the main actor; the records are set on it. Reading stops when the
/// object goes away or ``stop()`` is called.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor @Observable
public final class ObservedRecords {
    /// The entity's live records that the filter keeps, sorted by id.
    public private(set) var records: [ObservedRecord] = []
    /// Why the records stopped following the store (it could not be read); `nil` while they follow it.
    public private(set) var failure: (any Error)?
    /// Set on the main actor only; read by `deinit` too, when nothing else holds the object.
    @ObservationIgnored nonisolated(unsafe) private var reading: Task<Void, Never>?

    /// Starts following `entity`'s records in `store` that `isIncluded` keeps.
    public init(
        store: Store, entity: EntityName, where isIncluded: @escaping @Sendable (RecordID, JSONValue) -> Bool = { _, _ in true }
    ) {
        let observation = store.observe(entity, where: isIncluded)
        reading = Task.detached { [weak self] in
            do {
                for try await records in observation {
                    guard let self else { return }
                    await self.show(records)
                }
            } catch {
                await self?.fail(error)
            }
        }
    }

    deinit {
        reading?.cancel()
    }

    /// Stops following the store; ``records`` keeps what it last held.
    public func stop() {
        reading?.cancel()
        reading = nil
    }

    private func show(_ records: [ObservedRecord]) {
        self.records = records
    }

    private func fail(_ error: any Error) {
        failure = error
    }
}
#endif
