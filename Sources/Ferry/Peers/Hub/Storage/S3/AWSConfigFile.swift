import Foundation

/// An AWS CLI configuration file (`~/.aws/credentials`, `~/.aws/config`): INI sections of
/// `key = value` lines. A file that is missing or unreadable has no sections.
struct AWSConfigFile: Sendable {
    let path: String
    private(set) var sections: [String: [String: String]] = [:]

    init(path: String) {
        if let bytes = try? FileSystem.readFile(path), bytes.count <= 1 << 20 {
            self.init(path: path, text: String(decoding: bytes, as: UTF8.self))
        } else {
            self.init(path: path, text: "")
        }
    }

    init(path: String, text: String) {
        self.path = path
        var current: String?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                current = name
                if sections[name] == nil { sections[name] = [:] }
                continue
            }
            // Nested settings (a line indented under `s3 =`) are not read: none of ours are nested.
            guard let current, rawLine.first != " " && rawLine.first != "\t", let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if !key.isEmpty && !value.isEmpty { sections[current]?[key] = value }
        }
    }

    /// The settings of a section, `nil` when there is none.
    func section(_ name: String) -> [String: String]? { sections[name] }
}
