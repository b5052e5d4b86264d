import Testing
@testable import Ferry

@Suite struct SmokeTests {
    @Test func entityNameRules() throws {
        #expect(throws: ValidationError.self) { try EntityName("1abc") }
        #expect(try EntityName("User_2").rawValue == "User_2")
    }
}
