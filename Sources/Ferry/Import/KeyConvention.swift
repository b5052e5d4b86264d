/// How an entity's keys are stored: converted to camelCase (the default) or kept as they come.
///
/// Remote APIs often speak snake_case (`first_name`, `user_id`); Swift apps read camelCase
/// (`firstName`, `userID`). With ``camel``, import stores the camelCase form and export gives
/// back the snake_case form:
///
/// ```swift
/// KeyConvention.camel.storageKey(forRemoteKey: "user_id", entity: "User")   // "userID"
/// KeyConvention.camel.storageKey(forRemoteKey: "type", entity: "User")      // "userType"
/// KeyConvention.camel.remoteKey(forStorageKey: "updatedURL", entity: "User") // "updated_url"
/// ```
///
/// Rules of ``camel``:
/// - words are split on `_`; every word but the first is capitalized, and the acronyms in
///   ``acronyms`` are upper-cased when not first (`user_id` → `userID`, `id` → `id`,
///   `uuid_value` → `uuidValue`); an acronym followed by `s` keeps the `s` lower (`user_ids` →
///   `userIDs`);
/// - a key without `_` is taken as it is, so camelCase input (`firstName`) stays `firstName`;
/// - the reserved names `type` and `description` are stored as `<entity>Type` and
///   `<entity>Description`, with the entity name in lower camelCase (`User` → `userType`);
/// - digits do not start a word: `address_line_1` → `addressLine1` → `address_line1`. Declare a
///   `remoteKey` in the schema for such keys when the exact remote spelling matters.
public enum KeyConvention: String, Sendable, Hashable, CaseIterable {
    /// Remote snake_case keys are stored in camelCase and exported back in snake_case.
    case camel
    /// Keys are stored and exported exactly as they come.
    case asis

    /// The acronyms written in capitals inside a camelCase key.
    public static let acronyms: Set<String> = ["id", "uuid", "url", "uri", "pdf", "png", "jpg", "json", "xml"]

    /// The keys that are stored with the entity's name in front, because apps and frameworks
    /// commonly reserve them (`NSObject.description`, Swift's `type(of:)`).
    public static let reservedKeys: Set<String> = ["type", "description"]

    /// The key under which a remote key's value is stored.
    ///
    /// - Parameters:
    ///   - remoteKey: the key as the remote JSON spells it (`first_name`).
    ///   - entity: the entity the record belongs to, for the reserved names (`User`).
    /// - Returns: the storage key (`firstName`); with ``asis``, `remoteKey` unchanged.
    public func storageKey(forRemoteKey remoteKey: String, entity: String) -> String {
        guard self == .camel else { return remoteKey }
        if Self.reservedKeys.contains(remoteKey) {
            return Self.lowerCamelCased(entity) + Self.capitalized(remoteKey)
        }
        return Self.camelCased(remoteKey)
    }

    /// The remote key that a storage key is exported under: the inverse of
    /// ``storageKey(forRemoteKey:entity:)``.
    ///
    /// - Parameters:
    ///   - storageKey: the key as stored (`userID`, `userType`).
    ///   - entity: the entity the record belongs to (`User`).
    /// - Returns: the remote key (`user_id`, `type`); with ``asis``, `storageKey` unchanged.
    public func remoteKey(forStorageKey storageKey: String, entity: String) -> String {
        guard self == .camel else { return storageKey }
        let prefix = Self.lowerCamelCased(entity)
        for reserved in Self.reservedKeys.sorted() where storageKey == prefix + Self.capitalized(reserved) {
            return reserved
        }
        return Self.snakeCased(storageKey)
    }

    /// Converts a snake_case key to camelCase, upper-casing ``acronyms`` that are not first.
    ///
    /// ```swift
    /// KeyConvention.camelCased("updated_url") // "updatedURL"
    /// KeyConvention.camelCased("firstName")   // "firstName" (no `_`: taken as it is)
    /// KeyConvention.camelCased("GreenWallet") // "greenWallet" (a leading capital is lowered)
    /// ```
    ///
    /// Leading and trailing underscores are kept; a key with two underscores in a row is
    /// returned as it is, since it would not come back the same way.
    public static func camelCased(_ key: String) -> String {
        guard key.contains("_") else { return key.first?.isUppercase == true ? lowerCamelCased(key) : key }
        let leading = key.prefix { $0 == "_" }
        let trailing = String(key.reversed().prefix { $0 == "_" })
        guard leading.count + trailing.count < key.count else { return key }
        let core = key.dropFirst(leading.count).dropLast(trailing.count)
        let words = core.split(separator: "_", omittingEmptySubsequences: false)
        guard !words.contains(where: \.isEmpty) else { return key }
        var result = String(leading)
        for (index, word) in words.enumerated() {
            let lower = word.lowercased()
            if index == 0 {
                result += word.first?.isUppercase == true ? lowerCamelCased(String(word)) : String(word)
            } else if acronyms.contains(lower) {
                result += lower.uppercased()
            } else if lower.hasSuffix("s"), acronyms.contains(String(lower.dropLast())) {
                result += lower.dropLast().uppercased() + "s"
            } else {
                result += capitalized(String(word))
            }
        }
        return result + trailing
    }

    /// Converts a camelCase key to snake_case, keeping runs of capitals together as one word.
    ///
    /// ```swift
    /// KeyConvention.snakeCased("userIDFirst") // "user_id_first"
    /// KeyConvention.snakeCased("URLString")   // "url_string"
    /// KeyConvention.snakeCased("userIDs")     // "user_ids"
    /// ```
    public static func snakeCased(_ key: String) -> String {
        let leading = key.prefix { $0 == "_" }
        let trailing = String(key.reversed().prefix { $0 == "_" })
        guard leading.count + trailing.count < key.count else { return key }
        let characters = Array(key.dropFirst(leading.count).dropLast(trailing.count))
        var words: [String] = []
        var current = ""
        func endWord() {
            if !current.isEmpty { words.append(current) }
            current = ""
        }
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "_" {
                endWord()
                index += 1
                continue
            }
            guard character.isUppercase else {
                current.append(character)
                index += 1
                continue
            }
            endWord()
            var end = index
            while end < characters.count, characters[end].isUppercase { end += 1 }
            let run = String(characters[index..<end]).lowercased()
            let followedByPluralS = end < characters.count && characters[end] == "s"
                && (end + 1 == characters.count || !characters[end + 1].isLowercase)
            if end - index > 1, followedByPluralS, let parts = acronymWords(run) {
                words += parts.dropLast() + [parts[parts.count - 1] + "s"]  // "IDs", "URLIDs"
                index = end + 1
            } else if end - index == 1 {
                current = run  // one capital starts a word that lowercase letters continue
                index = end
            } else if end < characters.count, characters[end].isLowercase {
                // "URLString": the S starts "String".
                let head = String(run.dropLast())
                words += acronymWords(head) ?? [head]
                index = end - 1
            } else {
                words += acronymWords(run) ?? [run]
                index = end
            }
        }
        endWord()
        return String(leading) + words.joined(separator: "_") + trailing
    }

    /// Splits a lowercased run of capitals into known acronyms (`urlid` → `url`, `id`), or `nil`
    /// when it is not made of them only.
    static func acronymWords(_ run: String) -> [String]? {
        if run.isEmpty { return [] }
        for length in stride(from: min(run.count, 4), through: 2, by: -1) {
            let head = String(run.prefix(length))
            if acronyms.contains(head), let rest = acronymWords(String(run.dropFirst(length))) {
                return [head] + rest
            }
        }
        return nil
    }

    /// `User` → `user`, `URLRecord` → `urlRecord`, `UUID` → `uuid`.
    static func lowerCamelCased(_ name: String) -> String {
        let characters = Array(name)
        var end = 0
        while end < characters.count, characters[end].isUppercase { end += 1 }
        if end > 1, end < characters.count, characters[end].isLowercase { end -= 1 }
        return String(characters[..<end]).lowercased() + String(characters[end...])
    }

    static func capitalized(_ word: String) -> String {
        guard let first = word.first else { return word }
        return first.uppercased() + word.dropFirst()
    }
}
