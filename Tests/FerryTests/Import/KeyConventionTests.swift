import Testing
@testable import Ferry

@Suite struct KeyConventionTests {
    /// Remote snake_case keys and their camelCase storage form; each row round-trips both ways.
    static let roundTrips: [(remote: String, stored: String)] = [
        ("id", "id"),
        ("user_id", "userID"),
        ("updated_url", "updatedURL"),
        ("uuid_value", "uuidValue"),
        ("user_id_first", "userIDFirst"),
        ("first_name", "firstName"),
        ("last_name", "lastName"),
        ("email", "email"),
        ("age_of_person", "ageOfPerson"),
        ("created_at", "createdAt"),
        ("updated_at", "updatedAt"),
        ("birth_date", "birthDate"),
        ("website_url", "websiteURL"),
        ("avatar_png", "avatarPNG"),
        ("cover_jpg", "coverJPG"),
        ("invoice_pdf", "invoicePDF"),
        ("payload_json", "payloadJSON"),
        ("feed_xml", "feedXML"),
        ("callback_uri", "callbackURI"),
        ("url", "url"),
        ("uuid", "uuid"),
        ("json_payload", "jsonPayload"),
        ("pdf_url", "pdfURL"),
        ("user_ids", "userIDs"),
        ("image_urls", "imageURLs"),
        ("company_id", "companyID"),
        ("parent_uuid", "parentUUID"),
        ("is_active", "isActive"),
        ("has_children", "hasChildren"),
        ("a_b", "aB"),
        ("x", "x"),
        ("name", "name"),
        ("zip_code", "zipCode"),
        ("phone_number_mobile", "phoneNumberMobile"),
        ("identity", "identity"),
        ("identity_id", "identityID"),
        ("idea_list", "ideaList"),
        ("external_id_source", "externalIDSource"),
        ("json_url_id", "jsonURLID"),
        ("_private_note", "_privateNote"),
        ("notes_count", "notesCount"),
        ("time_zone_name", "timeZoneName"),
        ("image_url_ids", "imageURLIDs"),
    ]

    @Test(arguments: roundTrips)
    func roundTripsBetweenSnakeAndCamel(remote: String, stored: String) {
        #expect(KeyConvention.camelCased(remote) == stored)
        #expect(KeyConvention.snakeCased(stored) == remote)
        #expect(KeyConvention.camel.storageKey(forRemoteKey: remote, entity: "User") == stored)
        #expect(KeyConvention.camel.remoteKey(forStorageKey: stored, entity: "User") == remote)
    }

    @Test func camelCaseInputIsTakenAsItIs() {
        for key in ["firstName", "userID", "createdAt", "wikipediaLink", "giftIdeas", "homeTeam"] {
            #expect(KeyConvention.camel.storageKey(forRemoteKey: key, entity: "User") == key)
        }
    }

    @Test func reservedNamesGetTheEntityPrefix() {
        let camel = KeyConvention.camel
        #expect(camel.storageKey(forRemoteKey: "type", entity: "User") == "userType")
        #expect(camel.storageKey(forRemoteKey: "description", entity: "User") == "userDescription")
        #expect(camel.storageKey(forRemoteKey: "type", entity: "BlogPost") == "blogPostType")
        #expect(camel.storageKey(forRemoteKey: "type", entity: "URLRecord") == "urlRecordType")
        #expect(camel.remoteKey(forStorageKey: "userType", entity: "User") == "type")
        #expect(camel.remoteKey(forStorageKey: "blogPostDescription", entity: "BlogPost") == "description")
        // Another entity's prefix is an ordinary key.
        #expect(camel.remoteKey(forStorageKey: "userType", entity: "Company") == "user_type")
    }

    @Test func capitalRunsSplitBeforeTheirLastCapital() {
        #expect(KeyConvention.snakeCased("URLString") == "url_string")
        #expect(KeyConvention.snakeCased("HTMLParser") == "html_parser")
        #expect(KeyConvention.snakeCased("already_snake") == "already_snake")
    }

    @Test func digitsDoNotStartAWord() {
        // Lossy by design, like Foundation's key strategies: declare a remoteKey when it matters.
        #expect(KeyConvention.camelCased("address_line_1") == "addressLine1")
        #expect(KeyConvention.snakeCased("addressLine1") == "address_line1")
        #expect(KeyConvention.camelCased("md5_hash") == "md5Hash")
        #expect(KeyConvention.snakeCased("md5Hash") == "md5_hash")
    }

    @Test func oddUnderscoresAreKept() {
        #expect(KeyConvention.camelCased("a__b") == "a__b")
        #expect(KeyConvention.camelCased("_") == "_")
        #expect(KeyConvention.camelCased("trailing_") == "trailing_")
    }

    @Test func asisKeepsEveryKey() {
        for key in ["first_name", "type", "description", "userID"] {
            #expect(KeyConvention.asis.storageKey(forRemoteKey: key, entity: "User") == key)
            #expect(KeyConvention.asis.remoteKey(forStorageKey: key, entity: "User") == key)
        }
    }
}
