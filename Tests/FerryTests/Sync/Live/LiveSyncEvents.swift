import Foundation
import FerryTestSupport
@testable import Ferry

/// Reads `live`'s events until `condition` holds after one (a round ended, a failure, a note),
/// with `seconds` as the only bound: the test waits on the loop's own word, not on a clock.
func waitForRounds(of live: LiveSync, seconds: Double = 60, until condition: @escaping @Sendable () -> Bool) async -> Bool {
    if condition() { return true }
    return await waitForEvent(of: live, seconds: seconds) { _ in condition() }
}

/// Reads `live`'s events until one `matches`, for at most `seconds`; whether one did.
func waitForEvent(of live: LiveSync, seconds: Double = 60, matching matches: @escaping @Sendable (LiveSync.Event) -> Bool) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await event in live.events {
                if case .failed(let error) = event { print("live sync: \(error)") }  // for the record of a failing test
                if case .note(let note) = event { print("live sync: \(note)") }
                if matches(event) { return true }
            }
            return false
        }
        group.addTask {
            await Deadline.reached(after: seconds)
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}

/// Writes `text` to the record file of `id` in the store at `store`, as an editor would.
func handEdit(_ store: String, _ id: String, _ text: String, entity: String = "Note") throws {
    let folder = store + "/records/" + entity
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + id + ".json"))
}

/// Whether the record file of `id` in the store at `store` holds `text`.
func recordFile(_ store: String, _ id: String, contains text: String, entity: String = "Note") -> Bool {
    guard let data = FileManager.default.contents(atPath: store + "/records/" + entity + "/" + id + ".json") else { return false }
    return String(decoding: data, as: UTF8.self).contains(text)
}

/// Store `a`, open, and the path of store `b`, closed (each round opens it as the peer).
func twoStores(in directory: TemporaryDirectory) throws -> (Store, String) {
    let a = try Store.create(at: directory.subpath("a"), name: "a")
    try Store.create(at: directory.subpath("b"), name: "b").close()
    return (a, directory.subpath("b"))
}
