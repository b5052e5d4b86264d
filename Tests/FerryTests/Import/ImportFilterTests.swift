import Testing
@testable import Ferry

@Suite struct ImportFilterTests {
    /// 2024-03-05T12:00:00.000Z, the injected "now" of every test.
    static let now: Int64 = 1_709_640_000_000

    static let user: JSONValue = [
        "id": 7,
        "firstName": "Ana",
        "age": 34,
        "score": 12.5,
        "active": true,
        "userType": "admin",
        "updatedAt": "2024-03-05T08:00:00.000Z",
        "createdAt": "2023-01-10T09:30:00.000Z",
        "deletedAt": nil,
        "company": ["name": "Northwind Traders", "id": "3", "address": ["city": "Lisbon"]],
        "tags": ["a", "b"],
    ]

    func matches(_ scope: String, _ document: JSONValue = user) throws -> Bool {
        try ImportFilter(parsing: scope).matches(document, now: Self.now)
    }

    /// The error description for a malformed scope.
    func failure(_ scope: String) -> String? {
        do {
            _ = try ImportFilter(parsing: scope)
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: Parsing

    @Test func parsesAComparison() throws {
        let filter = try ImportFilter(parsing: #"firstName = "Ana""#)
        #expect(filter == .comparison(.init(field: ["firstName"], op: .equal, operand: .value("Ana"))))
    }

    @Test func andBindsTighterThanOr() throws {
        let filter = try ImportFilter(parsing: "a = 1 or b = 2 and c = 3")
        let a = ImportFilter.comparison(.init(field: ["a"], op: .equal, operand: .value(1)))
        let b = ImportFilter.comparison(.init(field: ["b"], op: .equal, operand: .value(2)))
        let c = ImportFilter.comparison(.init(field: ["c"], op: .equal, operand: .value(3)))
        #expect(filter == .or(a, .and(b, c)))
        #expect(try ImportFilter(parsing: "(a = 1 or b = 2) and c = 3") == .and(.or(a, b), c))
    }

    @Test func parsesEveryOperator() throws {
        for op in ImportFilter.Operator.allCases {
            let filter = try ImportFilter(parsing: "age \(op.rawValue) 3")
            #expect(filter == .comparison(.init(field: ["age"], op: op, operand: .value(3))))
        }
        #expect(try ImportFilter(parsing: "age == 3") == ImportFilter(parsing: "age = 3"))
    }

    @Test func parsesLiterals() throws {
        let cases: [(String, JSONValue)] = [
            (#""a \"quoted\" \u00e9 \ud83d\ude00""#, "a \"quoted\" é 😀"), ("-12", -12), ("12.5", 12.5), ("1e3", 1000),
            ("true", true), ("FALSE", false), ("null", nil), (#""""#, ""),
        ]
        for (literal, value) in cases {
            #expect(try ImportFilter(parsing: "x = " + literal) == .comparison(.init(field: ["x"], op: .equal, operand: .value(value))))
        }
    }

    @Test func parsesRelativeTimes() throws {
        let cases: [(String, Int64)] = [
            ("now", 0), ("now-30m", -1_800_000), ("now-24h", -86_400_000), ("now-3d", -259_200_000),
            ("now+1w", 604_800_000), ("now-45s", -45_000),
        ]
        for (text, offset) in cases {
            let filter = try ImportFilter(parsing: "updatedAt > " + text)
            #expect(filter == .comparison(.init(field: ["updatedAt"], op: .greater, operand: .relativeTime(millisecondsFromNow: offset))))
        }
    }

    @Test func parsesDottedFields() throws {
        #expect(try ImportFilter(parsing: #"company.address.city = "Lisbon""#)
            == .comparison(.init(field: ["company", "address", "city"], op: .equal, operand: .value("Lisbon"))))
    }

    @Test func descriptionParsesBackToTheSameFilter() throws {
        let texts = [
            #"a = 1 or b != "x" and (c < 2 or d >= now-24h)"#, "x <= -1.5 and y > now", #"s = "tab\tquote\"""#,
        ]
        for text in texts {
            let filter = try ImportFilter(parsing: text)
            #expect(try ImportFilter(parsing: filter.description) == filter)
        }
    }

    // MARK: Errors

    @Test func missingOperatorPointsAtTheColumn() {
        #expect(failure("firstName  12") == "scope: expected an operator at column 12\n  firstName  12\n             ^")
    }

    @Test func malformedScopesNameTheProblemAndColumn() {
        let cases: [(String, String)] = [
            ("", "scope: expected a field at column 1"),
            ("age >", "scope: expected a value at column 6"),
            ("age > 3 and", "scope: expected a field at column 12"),
            ("age > 3 age < 5", "scope: expected 'and', 'or' or the end at column 9"),
            ("(age > 3", "scope: expected ')' at column 9"),
            ("age > 3)", "scope: expected 'and', 'or' or the end at column 8"),
            (#"name = "Ana"#, "scope: unterminated string at column 8"),
            ("age > now-24x", "scope: expected a unit s, m, h, d or w at column 13"),
            ("age > now-h", "scope: expected a duration such as now-24h at column 11"),
            ("age ! 3", "scope: expected '!=' at column 5"),
            ("age # 3", "scope: unexpected character '#' at column 5"),
            ("age = 012", "scope: a number cannot start with 0 at column 7"),
            ("age = 12abc", "scope: unexpected character after a number at column 9"),
            ("company..name = 1", "scope: expected a name in the field path at column 9"),
            (#"name = "a\qb""#, #"scope: invalid escape '\q' at column 10"#),
            ("= 3", "scope: expected a field at column 1"),
            ("age = name", "scope: expected a value at column 7"),
            ("é = 1", "scope: unexpected character 'é' at column 1"),
        ]
        for (scope, message) in cases {
            let description = failure(scope)
            #expect(description?.split(separator: "\n").first.map(String.init) == message, "\(scope)")
        }
    }

    @Test func columnsCountCharactersNotBytes() {
        #expect(failure(#"name = "Zoë" age"#) == "scope: expected 'and', 'or' or the end at column 14\n  name = \"Zoë\" age\n               ^")
    }

    // MARK: Evaluation

    @Test func equalityOnStringsNumbersAndBooleans() throws {
        #expect(try matches(#"firstName = "Ana""#))
        #expect(try !matches(#"firstName = "ana""#))
        #expect(try matches("age = 34"))
        #expect(try matches("active = true"))
        #expect(try matches("active != false"))
        #expect(try !matches("active < true"))
    }

    @Test func numbersCompareAcrossIntegerAndDouble() throws {
        #expect(try matches("age = 34.0"))
        #expect(try matches("age < 34.5"))
        #expect(try matches("score > 12"))
        #expect(try matches("score <= 12.5"))
        #expect(try matches("score >= 1.25e1"))
        #expect(try !matches("age > 34"))
        #expect(try matches("id = 7"))
    }

    @Test func nullMatchesMissingAndNullFields() throws {
        #expect(try matches("deletedAt = null"))
        #expect(try matches("nickname = null"))
        #expect(try !matches("firstName = null"))
        #expect(try matches("firstName != null"))
        #expect(try !matches("deletedAt != null"))
        #expect(try !matches("deletedAt < null"))
    }

    @Test func missingFieldsAreNotEqualToValues() throws {
        #expect(try !matches("nickname = 3"))
        #expect(try matches("nickname != 3"))
        #expect(try !matches("nickname < 3"))
        #expect(try !matches("nickname >= 3"))
    }

    @Test func differentKindsAreNeverEqual() throws {
        #expect(try !matches(#"age = "34""#))
        #expect(try matches(#"age != "34""#))
        #expect(try !matches(#"age < "40""#))
        #expect(try !matches(#"company.id = 3"#))
        #expect(try matches(#"company.id = "3""#))
        #expect(try !matches("tags = 1"))
    }

    @Test func stringsOrderByUnicodeScalars() throws {
        #expect(try matches(#"firstName < "Ben""#))
        #expect(try matches(#"firstName > "AA""#))
        #expect(try matches(#"firstName >= "Ana""#))
        #expect(try !matches(#"firstName < "Ana""#))
    }

    @Test func relativeTimesCompareWithStoredDates() throws {
        #expect(try matches("updatedAt > now-24h"))
        #expect(try matches("updatedAt > now-5h"))
        #expect(try !matches("updatedAt > now-3h"))
        #expect(try matches("createdAt < now-30d"))
        #expect(try matches("updatedAt <= now"))
        #expect(try !matches("updatedAt >= now-30m"))
    }

    @Test func relativeTimesAgainstNonDates() throws {
        #expect(try !matches("firstName > now-24h"))
        #expect(try !matches("age < now"))
        #expect(try matches("age != now"))
        #expect(try !matches("nickname = now"))
    }

    @Test func isoLiteralsCompareAsDates() throws {
        #expect(try matches(#"updatedAt > "2024-03-05""#))
        #expect(try matches(#"updatedAt = "2024-03-05T10:00:00+02:00""#))
        #expect(try matches(#"updatedAt < "2024-03-05 08:00:01""#))
        #expect(try matches(#"createdAt = "2023-01-10T09:30:00Z""#))
        #expect(try matches(#"createdAt >= "2023-01-10T09:30""#))
        #expect(try !matches(#"createdAt > "2023-01-10T09:30:00.000Z""#))
    }

    @Test func dottedPathsReachNestedObjects() throws {
        #expect(try matches(#"company.name = "Northwind Traders""#))
        #expect(try matches(#"company.address.city = "Lisbon""#))
        #expect(try matches(#"company.address.zip = null"#))
        #expect(try matches(#"firstName.length = null"#))
    }

    @Test func andOrAndParentheses() throws {
        #expect(try matches(#"userType = "admin" and age > 30"#))
        #expect(try !matches(#"userType = "admin" and age > 40"#))
        #expect(try matches(#"userType = "member" or age > 30"#))
        #expect(try matches(#"age > 40 or userType = "member" or active = true"#))
        #expect(try !matches(#"(userType = "member" or age > 30) and active = false"#))
        #expect(try matches(#"userType = "member" or age > 30 and active = true"#))
        #expect(try matches(#"userType = "member" OR (age > 30 AND active = true)"#))
    }

    @Test func nonObjectsHaveOnlyMissingFields() throws {
        #expect(try matches("a = null", [1, 2]))
        #expect(try !matches("a = 1", "text"))
    }

    @Test func nowIsInjected() throws {
        let filter = try ImportFilter(parsing: "updatedAt > now-1h")
        let updated: JSONValue = ["updatedAt": "2024-03-05T08:00:00.000Z"]
        #expect(filter.matches(updated, now: 1_709_625_600_000 + 3_599_999))
        #expect(!filter.matches(updated, now: 1_709_625_600_000 + 3_600_000))
    }
}

extension ImportFilterTests {
    @Test func errorCarriesExpressionAndColumn() {
        #expect(throws: ImportError.invalidScope(expression: "price <", column: 8, message: "expected a value")) {
            try ImportFilter(parsing: "price <")
        }
    }

    @Test func filtersAProductList() throws {
        let products: [JSONValue] = [
            ["id": 1001, "status": "active", "price": 12.2, "updatedAt": "2024-03-05T11:00:00.000Z"],
            ["id": 1002, "status": "active", "price": 19.99, "updatedAt": "2024-01-01T00:00:00.000Z"],
            ["id": 1003, "status": "draft", "price": 0.1, "updatedAt": "2024-03-05T11:30:00.000Z"],
            ["id": 1004, "status": "discontinued", "price": 240, "updatedAt": "2024-03-04T13:00:00.000Z"],
        ]
        let scope = try ImportFilter(parsing: #"status = "active" and price < 20 or updatedAt > now-1d and status != "active""#)
        let ids = products.filter { scope.matches($0, now: Self.now) }.compactMap { $0["id"]?.integerValue }
        #expect(ids == [1001, 1002, 1003, 1004])
        let cheapRecent = try ImportFilter(parsing: "price <= 12.2 and updatedAt >= now-60m")
        #expect(products.filter { cheapRecent.matches($0, now: Self.now) }.compactMap { $0["id"]?.integerValue } == [1001, 1003])
    }
}
