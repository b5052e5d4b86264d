import Dispatch
import Foundation

/// What the entity folders under `records/` hold, counted on another thread while a status
/// scan walks the index (see ``Store/scanForEdits(progress:)``): per folder, the files shaped
/// as record files, the folders of long ids, and what does not belong.
///
/// Counting, not collecting: a folder of a million files costs a listing and no memory, and
/// when its count equals the files the scan claimed in it, nothing in it is new.
final class RecordFolderCount: @unchecked Sendable {
    struct Folder: Sendable {
        /// Regular files named `<1 to 240 bytes>.json`, not temporary (`.tmp-…`).
        var recordFiles = 0
        /// Folders named `…~`, which hold the pieces of long ids.
        var longIDFolders: [String] = []
        /// Other regular files (names Ferry does not write), for the scan to advise on.
        var otherFiles: [String] = []
        /// Entries that do not belong: other folders, links and special files.
        var problems: [StoreStatus.Problem] = []
        /// Its symbolic links, relative to the store (see ``StoreError/linkInRecords(path:)``).
        var links: [String] = []
    }

    private let recordsPath: String
    private let entities: [EntityName]
    /// What is left out of the count, as if absent.
    private let ignoreRules: IgnoreRules
    /// Per entity, in order; `nil` for a folder that could not be listed (the scan lists it
    /// again itself, and reports why).
    private var folders: [Folder?] = []
    private let done = DispatchGroup()

    init(recordsPath: String, entities: [EntityName], ignoring ignoreRules: IgnoreRules) {
        self.recordsPath = recordsPath
        self.entities = entities
        self.ignoreRules = ignoreRules
    }

    /// Starts counting on a thread of its own (see ``RecordFileStatBatch/start()``).
    func start() {
        done.enter()
        let thread = Thread { [self] in
            countAll()
            done.leave()
        }
        thread.start()
    }

    /// Waits for the count; one entry per entity given.
    func wait() -> [Folder?] {
        done.wait()
        return folders
    }

    /// Whether a name holds only the bytes of canonical record file names (so the ignore rules
    /// need not be asked of it): no allocation, as every file of every folder is looked at.
    static func mayBeCanonical(_ name: String) -> Bool {
        name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "%"), UInt8(ascii: "A")...UInt8(ascii: "F"):
                return true
            default:
                return false
            }
        }
    }

    private func countAll() {
        folders = entities.map { entity in
            var folder = Folder()
            let suffix = RecordFileName.fileExtension.utf8.count
            do {
                try FileSystem.forEachEntry(ofDirectory: recordsPath + "/" + entity.rawValue) { entry in
                    if entry.name.hasPrefix(".tmp-") { return }
                    // Only what is not counted as a record file is asked (a name Ferry writes is
                    // always a record's; the rules are for the few others).
                    let length = entry.name.utf8.count
                    let isRecordShaped = entry.kind == .regular && entry.name.hasSuffix(RecordFileName.fileExtension) && length > suffix
                        && length - suffix <= RecordFileName.pieceLength
                    if !(isRecordShaped && Self.mayBeCanonical(entry.name)), !(entry.kind == .directory && entry.name.hasSuffix("~")),
                        ignoreRules.ignores("records/\(entity.rawValue)/\(entry.name)", isFolder: entry.kind == .directory)
                    {
                        return
                    }
                    switch entry.kind {
                    case .directory where entry.name.hasSuffix("~"):
                        folder.longIDFolders.append(entry.name)
                    case .directory:
                        folder.problems.append(.init(path: "records/\(entity.rawValue)/\(entry.name)", reason: "unexpected folder (an entity folder holds record files only): move it out of records/, or list it in .ferryignore"))
                    case .regular:
                        let length = entry.name.utf8.count
                        if entry.name.hasSuffix(RecordFileName.fileExtension), length > suffix, length - suffix <= RecordFileName.pieceLength {
                            folder.recordFiles += 1
                        } else {
                            folder.otherFiles.append(entry.name)
                        }
                    case .symbolicLink:
                        folder.links.append("records/\(entity.rawValue)/\(entry.name)")
                    default:
                        folder.problems.append(.init(path: "records/\(entity.rawValue)/\(entry.name)", reason: "not a regular file: move it out of records/, or list it in .ferryignore"))
                    }
                }
            } catch {
                return nil
            }
            return folder
        }
    }
}
