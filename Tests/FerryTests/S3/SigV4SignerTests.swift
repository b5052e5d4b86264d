import Foundation
import XCTest
@testable import Ferry

/// HMAC-SHA-256 against RFC 4231, and Signature Version 4 against the AWS SigV4 test suite
/// (github.com/awslabs/aws-c-auth at 495329c2433034bd8fd53fc6ba9e0202d3fac876,
/// tests/aws-signing-test-suite/v4/<case>/{request.txt, context.json, header-canonical-request.txt,
/// header-string-to-sign.txt, header-signature.txt}: credentials AKIDEXAMPLE, us-east-1, service
/// "service", 2015-08-30T12:36:00Z), the AWS General Reference's signing-key example, and the
/// examples of the S3 documentation ("Signature Calculations for the Authorization Header:
/// Transferring Payload in a Single Chunk").
final class SigV4SignerTests: XCTestCase {
    func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    func testRFC4231() {
        let cases: [(key: [UInt8], data: [UInt8], mac: String)] = [
            ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
             "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
             "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
             "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            (hex("0102030405060708090a0b0c0d0e0f10111213141516171819"), [UInt8](repeating: 0xcd, count: 50),
             "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
            ([UInt8](repeating: 0x0c, count: 20), Array("Test With Truncation".utf8),
             "a3b6167473100ee06e0c796c2955552b"),
            ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
            ([UInt8](repeating: 0xaa, count: 131),
             Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
             "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
        ]
        for (index, item) in cases.enumerated() {
            let mac = HMACSHA256.authenticate(item.data, key: item.key).hex
            XCTAssertTrue(mac.hasPrefix(item.mac), "RFC 4231 test case \(index + 1): \(mac)")
        }
    }

    struct Vector {
        var name: String
        var method: String
        var target: String
        var headers: [(String, String)]
        var body: String
        var token: String?
        var signBody: Bool
        var canonicalRequest: String
        var stringToSign: String
        var signature: String
    }

    static let vectors: [Vector] = [
        Vector(
            name: "get-vanilla", method: "GET", target: "/", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(
            name: "get-vanilla-query", method: "GET", target: "/", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(
            name: "get-vanilla-query-order-key-case", method: "GET", target: "/?Param2=value2&Param1=value1", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0",
            signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        Vector(
            name: "get-vanilla-query-order-encoded", method: "GET", target: "/?Param-3=Value3&Param=Value2&%E1%88%B4=Value1", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\n%E1%88%B4=Value1&Param=Value2&Param-3=Value3\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n868294f5c38bd141c4972a373a76654f1418a8e4fc18b2e7903ae45e8ae0ec71",
            signature: "371d3713e185cc334048618a97f809c9ffe339c62934c032af5a0e595648fcac"),
        Vector(
            name: "get-vanilla-query-unreserved", method: "GET", target: "/?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\n-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nc30d4703d9f799439be92736156d47ccfb2d879ddf56f5befa6d1d6aab979177",
            signature: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
        Vector(
            name: "get-vanilla-utf8-query", method: "GET", target: "/?ሴ=bar", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\n%E1%88%B4=bar\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\neb30c5bed55734080471a834cc727ae56beb50e5f39d1bff6d0d38cb192a7073",
            signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        Vector(
            name: "get-vanilla-empty-query-key", method: "GET", target: "/?Param1=value1", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\nParam1=value1\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n1e24db194ed7d0eec2de28d7369675a243488e08526e8c1c73571282f7c517ab",
            signature: "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"),
        Vector(
            name: "get-utf8", method: "GET", target: "/ሴ", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/%E1%88%B4\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n2a0a97d02205e45ce2e994789806b19270cfbbb0921b278ccf58f5249ac42102",
            signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
        Vector(
            name: "get-unreserved", method: "GET", target: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n6a968768eefaa713e2a6b16b589a8ea192661f098f37349f4e2c0082757446f9",
            signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        Vector(
            name: "get-space-normalized", method: "GET", target: "/example space/", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/example%20space/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n63ee75631ed7234ae61b5f736dfc7754cdccfedbff4b5128a915706ee9390d86",
            signature: "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
        Vector(
            name: "get-slash-dot-slash-normalized", method: "GET", target: "/./", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(
            name: "get-slash-pointless-dot-normalized", method: "GET", target: "/./example", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/example\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n214d50c111a8edc4819da6a636336472c916b5240f51e9a51b5c3305180cf702",
            signature: "ef75d96142cf21edca26f06005da7988e4f8dc83a165a80865db7089db637ec5"),
        Vector(
            name: "get-relative-relative-normalized", method: "GET", target: "/example1/example2/../..", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(
            name: "get-slashes-normalized", method: "GET", target: "//example//", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/example/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\ncb96b4ac96d501f7c5c15bc6d67b3035061cfced4af6585ad927f7e6c985c015",
            signature: "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"),
        Vector(
            name: "get-header-value-trim", method: "GET", target: "/", headers: [("Host", "example.amazonaws.com"), ("My-Header1", " value1"), ("My-Header2", " \"a   b   c\"")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\na726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7",
            signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        Vector(
            name: "get-header-key-duplicate", method: "GET", target: "/", headers: [("Host", "example.amazonaws.com"), ("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value2,value2,value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\ndc7f04a3abfde8d472b0ab1a418b741b7c67174dad1551b4117b15527fbe966c",
            signature: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"),
        Vector(
            name: "get-header-value-order", method: "GET", target: "/", headers: [("Host", "example.amazonaws.com"), ("My-Header1", "value4"), ("My-Header1", "value1"), ("My-Header1", "value3"), ("My-Header1", "value2")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value4,value1,value3,value2\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n31ce73cd3f3d9f66977ad3dd957dc47af14df92fcd8509f59b349e9137c58b86",
            signature: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"),
        Vector(
            name: "get-header-value-multiline", method: "GET", target: "/", headers: [("Host", "example.amazonaws.com"), ("My-Header1", "value1\n  value2\n     value3")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1 value2 value3\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\ne99419459a677bc11de234014be3c4e72c1ea5b454ceb58b613061f5d7a162e8",
            signature: "cfd34249e4b1c8d6b91ef74165d41a32e5fab3306300901bb65a51a73575eefd"),
        Vector(
            name: "get-vanilla-with-session-token", method: "GET", target: "/", headers: [("Host", "example.amazonaws.com")], body: "",
            token: "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267", signBody: false,
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\nx-amz-security-token:6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267\n\nhost;x-amz-date;x-amz-security-token\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n067b36aa60031588cea4a4cde1f21215227a047690c72247f1d70b32fbbfad2b",
            signature: "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8"),
        Vector(
            name: "post-sts-header-before", method: "POST", target: "/", headers: [("Host", "example.amazonaws.com")], body: "",
            token: "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==", signBody: false,
            canonicalRequest: "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\nx-amz-security-token:AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==\n\nhost;x-amz-date;x-amz-security-token\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nc237e1b440d4c63c32ca95b5b99481081cb7b13c7e40434868e71567c1a882f6",
            signature: "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead"),
        Vector(
            name: "post-vanilla", method: "POST", target: "/", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87",
            signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        Vector(
            name: "post-vanilla-query", method: "POST", target: "/?Param1=value1", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "POST\n/\nParam1=value1\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd",
            signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        Vector(
            name: "post-header-key-case", method: "POST", target: "/", headers: [("Host", "example.amazonaws.com")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n553f88c9e4d10fc9e109e2aeb65f030801b70c2f6468faca261d401ae622fc87",
            signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        Vector(
            name: "post-header-key-sort", method: "POST", target: "/", headers: [("Host", "example.amazonaws.com"), ("My-Header1", "value1")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "POST\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n9368318c2967cf6de74404b30c65a91e8f6253e0a8659d6d5319f1a812f87d65",
            signature: "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"),
        Vector(
            name: "post-header-value-case", method: "POST", target: "/", headers: [("Host", "example.amazonaws.com"), ("My-Header1", "VALUE1")], body: "",
            token: nil, signBody: false,
            canonicalRequest: "POST\n/\n\nhost:example.amazonaws.com\nmy-header1:VALUE1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nd51ced243e649e3de6ef63afbbdcbca03131a21a7103a1583706a64618606a93",
            signature: "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"),
        Vector(
            name: "post-x-www-form-urlencoded", method: "POST", target: "/", headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Host", "example.amazonaws.com"), ("Content-Length", "13")], body: "Param1=value1",
            token: nil, signBody: true,
            canonicalRequest: "POST\n/\n\ncontent-length:13\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\nx-amz-content-sha256:9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e\nx-amz-date:20150830T123600Z\n\ncontent-length;content-type;host;x-amz-content-sha256;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nb1edd1d03544c25390e32085d55b57acc9a3961bb59415ff86c45c3d89d16cfb",
            signature: "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b"),
        Vector(
            name: "post-x-www-form-urlencoded-parameters", method: "POST", target: "/", headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"), ("Host", "example.amazonaws.com"), ("Content-Length", "13")], body: "Param1=value1",
            token: nil, signBody: true,
            canonicalRequest: "POST\n/\n\ncontent-length:13\ncontent-type:application/x-www-form-urlencoded; charset=utf-8\nhost:example.amazonaws.com\nx-amz-content-sha256:9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e\nx-amz-date:20150830T123600Z\n\ncontent-length;content-type;host;x-amz-content-sha256;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
            stringToSign: "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\na89f1a5b53e37702ee6363ce1da3ce8f54386f3c8f352ae652153c2982a0bc4d",
            signature: "328d1b9eaadca9f5818ef05e8392801e091653bafec24fcab71e7344e7f51422"),
    ]

    /// The suite's request-line target as a URL: the path percent-encoded as a client sends it,
    /// and query parts the suite already wrote encoded (`…-order-encoded`) sent as they are.
    func url(forTarget target: String) throws -> URL {
        let (path, query) = target.firstIndex(of: "?").map {
            (String(target[..<$0]), String(target[target.index(after: $0)...]))
        } ?? (target, "")
        let encodedQuery = query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                .map { $0.contains("%") ? String($0) : SigV4Signer.encode(String($0), keepingSlashes: false) }.joined(separator: "=")
        }.joined(separator: "&")
        return try XCTUnwrap(
            URL(string: "https://example.amazonaws.com" + SigV4Signer.encode(path, keepingSlashes: true) + (query.isEmpty ? "" : "?" + encodedQuery)),
            target)
    }

    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)  // 2015-08-30T12:36:00Z
    static let suiteScope = "20150830/us-east-1/service/aws4_request"

    static func suiteSigner(token: String? = nil, service: String = "service") -> SigV4Signer {
        SigV4Signer(
            credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", sessionToken: token),
            region: "us-east-1", service: service)
    }

    func testAWSSigV4TestSuite() throws {
        XCTAssertEqual(SigV4Signer.timestamp(Self.suiteDate), "20150830T123600Z")
        for vector in Self.vectors {
            let signer = Self.suiteSigner(token: vector.token)
            let url = try url(forTarget: vector.target)
            let payloadHash = SigV4Signer.payloadHash(Array(vector.body.utf8))
            // The generic suite signs the body through X-Amz-Content-Sha256 only for its
            // "sign_body" cases; a non-S3 signer never adds that header itself.
            var headers = vector.headers.map { (name: $0.0, value: $0.1) }
            if vector.signBody { headers.append((name: "X-Amz-Content-Sha256", value: payloadHash)) }
            var all = headers + [(name: "X-Amz-Date", value: "20150830T123600Z")]
            if let token = vector.token { all.append((name: "X-Amz-Security-Token", value: token)) }
            let canonical = signer.canonicalRequest(method: vector.method, url: url, headers: all, payloadHash: payloadHash)
            XCTAssertEqual(canonical.text, vector.canonicalRequest, vector.name)
            XCTAssertEqual(
                signer.stringToSign(timestamp: "20150830T123600Z", scope: Self.suiteScope, canonicalRequest: canonical.text),
                vector.stringToSign, vector.name)
            let added = signer.sign(method: vector.method, url: url, headers: headers, payloadHash: payloadHash, date: Self.suiteDate)
            XCTAssertEqual(
                added.map(\.name),
                ["X-Amz-Date"] + (vector.token == nil ? [] : ["X-Amz-Security-Token"]) + ["Authorization"], vector.name)
            XCTAssertEqual(added.first?.value, "20150830T123600Z")
            if let token = vector.token { XCTAssertEqual(added.first { $0.name == "X-Amz-Security-Token" }?.value, token) }
            let authorization = try XCTUnwrap(added.first { $0.name == "Authorization" }?.value, vector.name)
            XCTAssertEqual(
                authorization,
                "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/\(Self.suiteScope), SignedHeaders=\(canonical.signedHeaders), Signature=\(vector.signature)",
                vector.name)
        }
        XCTAssertEqual(Self.vectors.count, 27)
    }

    /// The suite's "-unnormalized" cases: the path rules S3 needs (no dot-segment removal, no
    /// collapsing of `//`), checked with an S3 signer's canonical request and the suite's key.
    /// Source: github.com/awslabs/aws-c-auth, tests/aws-signing-test-suite/v4/<name>/header-*.txt.
    static let unnormalizedVectors: [(name: String, target: String, canonicalRequest: String, stringToSign: String, signature: String)] = [
        ("get-relative-unnormalized", "/example/..",
         "GET\n/example/..\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
         "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n0511f456aa502b456d135fcb9d749374a55228f9dbeedda1eacf659e05b0615b",
         "eca7ead57bb5aa5c8e28007acd4ff04e1ff9a0ff3b237ec1554a184887ff9282"),
        ("get-relative-relative-unnormalized", "/example1/example2/../..",
         "GET\n/example1/example2/../..\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
         "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n76115030c0f3ff06c20fdff5ceb6d5e0b835a1743e00b94fea7c7f381269437b",
         "dc33e0856fd4baca4d7aa2146c38958283844764f38c74252a333df5e613003b"),
        ("get-slash-dot-slash-unnormalized", "/./",
         "GET\n/./\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
         "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nd67825e2268bd77a97c7688b8d72c31a3c1855b309808505ba0a9747d2465aa7",
         "68714168e6557f8f2de0ef956fc24dc2593a4bd2961f8df51898d8a134695145"),
        ("get-slash-pointless-dot-unnormalized", "/./example",
         "GET\n/./example\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
         "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n73895e0e829507e28e39fd24669aedc2434a8e179e547e3c075b42921f952cdb",
         "beb03f223f7deae4146464f06e29eebbee9c8afbe15c290cf07aa8b119e14cff"),
        ("get-slash-unnormalized", "//",
         "GET\n//\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
         "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n80cb39203d058af815de2b79250ff56e1b73eb9b4718c86556cdc6f150c5d209",
         "c88bcd3d312d75078c0cd961d6deae3f4c754924b01669efcfcb439fd5e5b76e"),
        ("get-slashes-unnormalized", "//example//",
         "GET\n//example//\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
         "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n528ec3105ee1f34ab014bb0a1a45da0ed2742a4fea3555149e5b4d5d201eb240",
         "87cca117541a147f6df867677d98a7d80dff226d2bfca9e4ffa899665623c7e5"),
        ("get-space-unnormalized", "/example space/",
         "GET\n/example%20space/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
         "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n63ee75631ed7234ae61b5f736dfc7754cdccfedbff4b5128a915706ee9390d86",
         "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
    ]

    func testAWSSigV4TestSuiteUnnormalizedPathsAreHowS3SignsThem() throws {
        let s3 = Self.suiteSigner(service: "s3")
        let key = Self.suiteSigner().signingKey(day: "20150830")
        for vector in Self.unnormalizedVectors {
            let url = try url(forTarget: vector.target)
            let headers = [(name: "Host", value: "example.amazonaws.com"), (name: "X-Amz-Date", value: "20150830T123600Z")]
            let canonical = s3.canonicalRequest(method: "GET", url: url, headers: headers, payloadHash: SigV4Signer.payloadHash([]))
            XCTAssertEqual(canonical.text, vector.canonicalRequest, vector.name)
            let toSign = s3.stringToSign(timestamp: "20150830T123600Z", scope: Self.suiteScope, canonicalRequest: canonical.text)
            XCTAssertEqual(toSign, vector.stringToSign, vector.name)
            XCTAssertEqual(HMACSHA256.authenticate(Array(toSign.utf8), key: key).hex, vector.signature, vector.name)
        }
    }

    /// The AWS General Reference's worked example ("Create a signed AWS API request", IAM
    /// ListUsers): its canonical request hash, signing key and signature.
    func testAWSGeneralReferenceSigningKeyExample() throws {
        let signer = Self.suiteSigner(service: "iam")
        let url = try XCTUnwrap(URL(string: "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08"))
        let canonical = signer.canonicalRequest(
            method: "GET", url: url,
            headers: [
                (name: "Content-Type", value: "application/x-www-form-urlencoded; charset=utf-8"), (name: "Host", value: "iam.amazonaws.com"),
                (name: "X-Amz-Date", value: "20150830T123600Z"),
            ],
            payloadHash: SigV4Signer.payloadHash([]))
        XCTAssertEqual(
            canonical.text,
            "GET\n/\nAction=ListUsers&Version=2010-05-08\ncontent-type:application/x-www-form-urlencoded; charset=utf-8\nhost:iam.amazonaws.com\nx-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let toSign = signer.stringToSign(timestamp: "20150830T123600Z", scope: signer.credentialScope(day: "20150830"), canonicalRequest: canonical.text)
        XCTAssertEqual(
            toSign,
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/iam/aws4_request\nf536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59")
        let key = signer.signingKey(day: "20150830")
        XCTAssertEqual(key.map { String(format: "%02x", $0) }.joined(), "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9")
        XCTAssertEqual(HMACSHA256.authenticate(Array(toSign.utf8), key: key).hex, "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7")
    }

    /// The S3 documentation's examples ("Signature Calculations for the Authorization Header:
    /// Transferring Payload in a Single Chunk"): bucket examplebucket, 24 May 2013, us-east-1.
    func testS3DocumentationExamples() throws {
        let signer = SigV4Signer(
            credentials: AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "s3")
        let date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
        let empty = SigV4Signer.payloadHash([])
        XCTAssertEqual(empty, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(
            signer.signingKey(day: "20130524").map { String(format: "%02x", $0) }.joined(),
            "dbb893acc010964918f1fd433add87c70e8b0db6be30c1fbeafefa5ec6ba8378")
        /// The canonical request's hash (the string to sign's last line) and the Authorization header.
        func signed(
            _ method: String, _ url: String, _ headers: [(name: String, value: String)], payloadHash: String
        ) throws -> (canonical: String, requestHash: String, authorization: String) {
            let url = try XCTUnwrap(URL(string: url))
            let added = signer.sign(method: method, url: url, headers: headers, payloadHash: payloadHash, date: date)
            XCTAssertEqual(added.map(\.name), ["X-Amz-Date", "X-Amz-Content-Sha256", "Authorization"])
            XCTAssertEqual(added[1].value, payloadHash)
            let all = headers + [(name: "Host", value: "examplebucket.s3.amazonaws.com")] + added.dropLast()
            let canonical = signer.canonicalRequest(method: method, url: url, headers: all, payloadHash: payloadHash).text
            return (canonical, SHA256.hash(Array(canonical.utf8)).hex, try XCTUnwrap(added.last?.value))
        }
        func authorization(_ signedHeaders: String, _ signature: String) -> String {
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=\(signedHeaders), Signature=\(signature)"
        }

        // GET Object, with a Range header.
        let get = try signed("GET", "https://examplebucket.s3.amazonaws.com/test.txt", [(name: "Range", value: "bytes=0-9")], payloadHash: empty)
        XCTAssertEqual(
            get.canonical,
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\nx-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\nx-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(get.requestHash, "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972")
        XCTAssertEqual(
            get.authorization,
            authorization("host;range;x-amz-content-sha256;x-amz-date", "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"))

        // PUT Object, with a Date header, a storage class and a body; `$` in the key is `%24`.
        let body = Array("Welcome to Amazon S3.".utf8)
        XCTAssertEqual(SigV4Signer.payloadHash(body), "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let put = try signed(
            "PUT", "https://examplebucket.s3.amazonaws.com/test$file.text",
            [(name: "Date", value: "Fri, 24 May 2013 00:00:00 GMT"), (name: "x-amz-storage-class", value: "REDUCED_REDUNDANCY")],
            payloadHash: SigV4Signer.payloadHash(body))
        XCTAssertTrue(put.canonical.hasPrefix("PUT\n/test%24file.text\n\n"), put.canonical)
        XCTAssertEqual(put.requestHash, "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d")
        XCTAssertEqual(
            put.authorization,
            authorization(
                "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class", "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"))

        // GET Bucket lifecycle: a query parameter without a value signs as `lifecycle=`.
        let lifecycle = try signed("GET", "https://examplebucket.s3.amazonaws.com/?lifecycle", [], payloadHash: empty)
        XCTAssertEqual(lifecycle.canonical.split(separator: "\n", omittingEmptySubsequences: false)[2], "lifecycle=")
        XCTAssertEqual(lifecycle.requestHash, "9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca")
        XCTAssertEqual(
            lifecycle.authorization,
            authorization("host;x-amz-content-sha256;x-amz-date", "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"))

        // GET Bucket (List Objects): parameters sorted, whatever their order in the URL.
        for query in ["max-keys=2&prefix=J", "prefix=J&max-keys=2"] {
            let list = try signed("GET", "https://examplebucket.s3.amazonaws.com/?" + query, [], payloadHash: empty)
            XCTAssertEqual(list.canonical.split(separator: "\n", omittingEmptySubsequences: false)[2], "max-keys=2&prefix=J")
            XCTAssertEqual(list.requestHash, "df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7")
            XCTAssertEqual(
                list.authorization,
                authorization("host;x-amz-content-sha256;x-amz-date", "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"))
        }
    }

    func testS3PathsAreSignedAsSentAndHostCarriesItsPort() throws {
        let signer = SigV4Signer(credentials: AWSCredentials(accessKeyID: "k", secretAccessKey: "s"), region: "us-east-1")
        func canonicalURI(_ url: String) throws -> String {
            let url = try XCTUnwrap(URL(string: url))
            let canonical = signer.canonicalRequest(
                method: "GET", url: url, headers: [(name: "Host", value: SigV4Signer.hostHeader(url))], payloadHash: "x")
            return String(canonical.text.split(separator: "\n", omittingEmptySubsequences: false)[1])
        }
        // Dot segments kept, escapes decoded and encoded once (upper-case hex), `%2F` in a key kept.
        XCTAssertEqual(try canonicalURI("http://127.0.0.1:8333/bucket/a%20b/./c%2Bd"), "/bucket/a%20b/./c%2Bd")
        XCTAssertEqual(try canonicalURI("http://h/bucket/a%2fb//c/../d"), "/bucket/a%2Fb//c/../d")
        XCTAssertEqual(try canonicalURI("http://h/bucket/k=v+w,x;y:z@(1)!*'"), "/bucket/k%3Dv%2Bw%2Cx%3By%3Az%40%281%29%21%2A%27")
        XCTAssertEqual(try canonicalURI("http://h/bucket/%C3%A9t%C3%A9%20%E2%9C%93"), "/bucket/%C3%A9t%C3%A9%20%E2%9C%93")
        XCTAssertEqual(try canonicalURI("http://h/bucket/%ff%e9"), "/bucket/%FF%E9")  // escapes that are not UTF-8 stay bytes
        XCTAssertEqual(PercentEncoding.decodeLeniently(Array("%zz100%%4".utf8)), Array("%zz100%%4".utf8))  // a stray % is itself
        XCTAssertEqual(try canonicalURI("http://h"), "/")
        XCTAssertEqual(try canonicalURI("http://h/"), "/")

        XCTAssertEqual(SigV4Signer.hostHeader(try XCTUnwrap(URL(string: "http://127.0.0.1:8333/bucket"))), "127.0.0.1:8333")
        XCTAssertEqual(SigV4Signer.hostHeader(try XCTUnwrap(URL(string: "https://h.example:443/x"))), "h.example")
        XCTAssertEqual(SigV4Signer.hostHeader(try XCTUnwrap(URL(string: "http://h.example:80/x"))), "h.example")
        XCTAssertEqual(SigV4Signer.hostHeader(try XCTUnwrap(URL(string: "https://h.example:80/x"))), "h.example:80")
        XCTAssertEqual(SigV4Signer.hostHeader(try XCTUnwrap(URL(string: "http://[::1]:9000/x"))), "[::1]:9000")
    }

    func testQueryEncoding() {
        XCTAssertEqual(SigV4Signer.canonicalQuery(nil), "")
        XCTAssertEqual(SigV4Signer.canonicalQuery(""), "")
        XCTAssertEqual(SigV4Signer.canonicalQuery("uploads"), "uploads=")
        XCTAssertEqual(SigV4Signer.canonicalQuery("prefix=a%20b+c/d&delimiter=%2f"), "delimiter=%2F&prefix=a%20b%2Bc%2Fd")
        XCTAssertEqual(SigV4Signer.canonicalQuery("b=2&a=2&a=1&A=3"), "A=3&a=1&a=2&b=2")
        XCTAssertEqual(SigV4Signer.canonicalQuery("k=%E1%88%b4&&x=a=b"), "k=%E1%88%B4&x=a%3Db")
    }

    func testSignAddsTheS3HeadersAndTheSessionToken() throws {
        let signer = SigV4Signer(
            credentials: AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret", sessionToken: "token/+="), region: "eu-west-1")
        let url = try XCTUnwrap(URL(string: "https://bucket.s3.eu-west-1.amazonaws.com/key"))
        let added = signer.sign(
            method: "PUT", url: url, headers: [(name: "Content-Type", value: "application/json")], payloadHash: SigV4Signer.unsignedPayload,
            date: Date(timeIntervalSince1970: 951_782_400))
        XCTAssertEqual(added.map(\.name), ["X-Amz-Date", "X-Amz-Content-Sha256", "X-Amz-Security-Token", "Authorization"])
        XCTAssertEqual(added.map(\.value).prefix(3), ["20000229T000000Z", "UNSIGNED-PAYLOAD", "token/+="])
        let authorization = try XCTUnwrap(added.last?.value)
        XCTAssertTrue(
            authorization.hasPrefix(
                "AWS4-HMAC-SHA256 Credential=AKID/20000229/eu-west-1/s3/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature="),
            authorization)
        XCTAssertFalse(authorization.contains("secret"))
    }

    func testTimestampsAreUTCAndClamped() {
        XCTAssertEqual(SigV4Signer.timestamp(Date(timeIntervalSince1970: 951_782_400)), "20000229T000000Z")
        XCTAssertEqual(SigV4Signer.timestamp(Date(timeIntervalSince1970: 1_440_938_160.999)), "20150830T123600Z")
        XCTAssertEqual(SigV4Signer.timestamp(Date(timeIntervalSince1970: 0)), "19700101T000000Z")
        XCTAssertEqual(SigV4Signer.timestamp(Date(timeIntervalSince1970: -1)), "19691231T235959Z")
        XCTAssertEqual(SigV4Signer.timestamp(Date(timeIntervalSince1970: .infinity)), "99991231T235959Z")
        XCTAssertEqual(SigV4Signer.timestamp(Date(timeIntervalSince1970: .nan)), "19700101T000000Z")
    }

    func testCredentialsNeverShowTheSecret() {
        let credentials = AWSCredentials(accessKeyID: "AKID", secretAccessKey: "topsecret", sessionToken: "tokentoken")
        var dumped = ""
        dump(credentials, to: &dumped)
        for text in ["\(credentials)", String(reflecting: credentials), dumped, "\([credentials])"] {
            XCTAssertTrue(text.contains("AKID"), text)
            XCTAssertFalse(text.contains("topsecret"), text)
            XCTAssertFalse(text.contains("tokentoken"), text)
        }
    }
}
