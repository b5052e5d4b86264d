/// Which files under `records/` are not records and not problems either: what editors, operating
/// systems and cloud drives leave beside a person's files (`.x.json.swp`, `x.json~`, `.DS_Store`,
/// a Dropbox conflicted copy), by a built-in list, and whatever the store's `.ferryignore` adds.
///
/// `.ferryignore` sits at the store's root and reads like `.gitignore`: one glob a line, `#`
/// starts a comment, `*` matches any run of characters but `/`, `?` one character, a trailing `/`
/// matches folders only, a leading `!` takes a file back, and a pattern holding a `/` is matched
/// against the whole path from the store's root (`records/Note/drafts/`) where any other is
/// matched against each name in the path. The last pattern that matches decides. Ferry's own
/// temporary files (`.tmp-…`) and the folders of long ids are never ignored, and the scans ask
/// no rule of a canonical record file name: it is always its record's file.
///
/// ```swift
/// let rules = try IgnoreRules.load(storeRoot: "./notes")
/// rules.ignores("records/Note/.todo.json.swp")  // true
/// rules.ignores("records/Note/todo.json")       // false
/// ```
public struct IgnoreRules: Sendable {
    /// The built-in patterns, asked before the store's own.
    public static let builtIn: [String] = [
        // Editors: vim swap files, backups, Emacs autosaves and locks, LibreOffice locks.
        ".*.swp", ".*.swo", ".*.swx", "*~", "#*#", ".#*", ".~lock.*#", "*.bak", "*.orig",
        // Operating systems.
        ".DS_Store", "._*", ".Spotlight-V100/", ".Trashes/", ".fseventsd/", "Thumbs.db", "ehthumbs.db", "desktop.ini",
        "$RECYCLE.BIN/", ".directory", ".nfs*",
        // Office temporary files, downloads and copies in progress.
        "~$*", "*.tmp", "*.temp", "*.part", "*.partial", "*.crdownload", "*.download",
        // Cloud drives: Dropbox, Google Drive, iCloud, OneDrive, Syncthing, Nextcloud.
        ".dropbox", ".dropbox.attr", ".dropbox.cache/", "* (*conflicted copy*)*", "*.icloud", ".~*",
        ".tmp.drivedownload/", ".tmp.driveupload/", ".stfolder/", ".stversions/", ".syncthing.*", "~syncthing~*",
        "*.sync-conflict-*", ".owncloudsync.log", "._sync_*", ".sync_*.db*",
    ]

    /// The name of the store's own list, at its root.
    public static let fileName = ".ferryignore"

    private let patterns: [Pattern]

    /// Rules made of the built-in list and then `patterns` (lines as in `.ferryignore`).
    public init(patterns: [String] = []) {
        self.patterns = Self.builtIn.compactMap { Pattern(line: $0, isListed: true) } + patterns.compactMap { Pattern(line: $0, isListed: false) }
    }

    /// The built-in list and the store's `.ferryignore`, if it has one.
    /// - Throws: ``StoreError/io(_:)`` when the file exists but cannot be read.
    public static func load(storeRoot: String) throws(StoreError) -> IgnoreRules {
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(storeRoot + "/" + fileName, limit: 1 << 20) } catch {
            if error.isNotFound { return IgnoreRules() }
            throw .io(error)
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return IgnoreRules(patterns: lines.map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) })
    }

    /// Whether the file (or, with `isFolder`, the folder) at `path`, relative to the store's root,
    /// is ignored: it is, or a folder it is in is. Ferry's temporary files (`.tmp-…`) never are.
    public func ignores(_ path: String, isFolder: Bool = false) -> Bool {
        let components = path.split(separator: "/").map(String.init)
        guard let last = components.last, !last.hasPrefix(".tmp-") else { return false }
        for end in components.indices {
            let isFolder = end < components.count - 1 || isFolder
            // A folder named like the pieces of a long id (`<240 bytes>~`) is Ferry's to judge,
            // whatever `*~` says: a piece, or a problem.
            if isFolder, components[end].hasSuffix("~") { continue }
            if decide(components[...end], isFolder: isFolder) { return true }
        }
        return false
    }

    /// What the last matching pattern says of the entry whose path is `components`.
    private func decide(_ components: ArraySlice<String>, isFolder: Bool) -> Bool {
        guard let last = components.last else { return false }
        let name = Array(last.unicodeScalars)[...]
        var path: ArraySlice<Unicode.Scalar>?
        var ignored = false
        for pattern in patterns where pattern.isNegated == ignored && (isFolder || !pattern.foldersOnly) {
            let subject: ArraySlice<Unicode.Scalar>
            if pattern.isAnchored {
                if path == nil { path = Array(components.joined(separator: "/").unicodeScalars)[...] }
                subject = path ?? name
            } else {
                subject = name
            }
            if Pattern.match(pattern.glob[...], subject) { ignored = !pattern.isNegated }
        }
        return ignored
    }

    /// One line of a list.
    private struct Pattern: Sendable {
        var glob: [Unicode.Scalar]
        var isNegated: Bool
        var foldersOnly: Bool
        /// Holds a `/`: matched against the whole path, not one name.
        var isAnchored: Bool

        /// - Parameter isListed: a pattern of the built-in list, where `#` starts no comment.
        init?(line: String, isListed: Bool) {
            var text = Substring(line)
            while text.last == " " || text.last == "\t" { text = text.dropLast() }
            guard !text.isEmpty, isListed || !text.hasPrefix("#") else { return nil }
            isNegated = text.hasPrefix("!")
            if isNegated { text = text.dropFirst() }
            if text.hasPrefix("\\") { text = text.dropFirst() }  // `\#`, `\!`: the character itself
            foldersOnly = text.hasSuffix("/")
            if foldersOnly { text = text.dropLast() }
            if text.hasPrefix("/") { text = text.dropFirst() }
            guard !text.isEmpty else { return nil }
            isAnchored = text.contains("/")
            glob = Array(text.unicodeScalars)
        }

        /// Glob matching: `*` any run without `/`, `?` one character but `/`.
        static func match(_ glob: ArraySlice<Unicode.Scalar>, _ text: ArraySlice<Unicode.Scalar>) -> Bool {
            var glob = glob
            var text = text
            var star: (glob: ArraySlice<Unicode.Scalar>, text: ArraySlice<Unicode.Scalar>)?
            while true {
                if let g = glob.first, g == "*" {
                    glob = glob.dropFirst()
                    star = (glob, text)
                    continue
                }
                if let c = text.first, let g = glob.first, g == c || (g == "?" && c != "/") {
                    glob = glob.dropFirst()
                    text = text.dropFirst()
                    continue
                }
                if glob.isEmpty && text.isEmpty { return true }
                // Let the last `*` take one more character, unless that is a `/`.
                guard let saved = star, let c = saved.text.first, c != "/" else { return false }
                star = (saved.glob, saved.text.dropFirst())
                glob = saved.glob
                text = saved.text.dropFirst()
            }
        }
    }
}
