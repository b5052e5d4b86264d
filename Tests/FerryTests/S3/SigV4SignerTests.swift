import Foundation
import XCTest
@testable import Ferry

/// HMAC-SHA-256 against RFC 4231, and Signature Version 4 against the AWS SigV4 test suite
/// (github.com/awslabs/aws-c-auth, tests/aws-signing-test-suite/v4, header-signing variants)
/// and the examples of the S3 documentation ("Signature Calculations for the Authorization
/// Header: Transferring Payload in a Single Chunk").
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

    func testAWSSigV4TestSuite() throws {
        let date = Date(timeIntervalSince1970: 1_440_938_160)  // 2015-08-30T12:36:00Z
        XCTAssertEqual(SigV4Signer.timestamp(date), "20150830T123600Z")
        for vector in Self.vectors {
            let signer = SigV4Signer(
                credentials: AWSCredentials(
                    accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", sessionToken: vector.token),
                region: "us-east-1", service: "service")
            // The request line's target, as a client would send it.
            let (path, query) = vector.target.firstIndex(of: "?").map {
                (String(vector.target[..<$0]), String(vector.target[vector.target.index(after: $0)...]))
            } ?? (vector.target, "")
            let encodedQuery = query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
                pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    // Already percent-encoded in the request line (…-order-encoded): sent as it is.
                    .map { $0.contains("%") ? String($0) : S3Client.encode(String($0), keepingSlashes: false) }.joined(separator: "=")
            }.joined(separator: "&")
            let url = try XCTUnwrap(
                URL(string: "https://example.amazonaws.com" + S3Client.encode(path, keepingSlashes: true) + (query.isEmpty ? "" : "?" + encodedQuery)),
                vector.name)
            let payloadHash = SigV4Signer.payloadHash(Array(vector.body.utf8))
            var headers = vector.headers.map { (name: $0.0, value: $0.1) }
            if vector.signBody { headers.append((name: "X-Amz-Content-Sha256", value: payloadHash)) }
            var all = headers + [(name: "X-Amz-Date", value: "20150830T123600Z")]
            if let token = vector.token { all.append((name: "X-Amz-Security-Token", value: token)) }
            let canonical = signer.canonicalRequest(method: vector.method, url: url, headers: all, payloadHash: payloadHash)
            XCTAssertEqual(canonical.text, vector.canonicalRequest, vector.name)
            XCTAssertEqual(
                signer.stringToSign(timestamp: "20150830T123600Z", scope: "20150830/us-east-1/service/aws4_request", canonicalRequest: canonical.text),
                vector.stringToSign, vector.name)
            let added = signer.sign(method: vector.method, url: url, headers: headers, payloadHash: payloadHash, date: date)
            let authorization = try XCTUnwrap(added.first { $0.name == "Authorization" }?.value, vector.name)
            XCTAssertTrue(authorization.hasSuffix("Signature=\(vector.signature)"), "\(vector.name): \(authorization)")
            XCTAssertTrue(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders="))
        }
        XCTAssertGreaterThanOrEqual(Self.vectors.count, 20)
    }

    /// The S3 documentation's examples: bucket examplebucket, 24 May 2013.
    func testS3DocumentationExamples() throws {
        let signer = SigV4Signer(
            credentials: AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "s3")
        let date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
        let empty = SigV4Signer.payloadHash([])
        func signature(_ method: String, _ url: String, _ headers: [(name: String, value: String)], payloadHash: String) throws -> String {
            let added = signer.sign(method: method, url: try XCTUnwrap(URL(string: url)), headers: headers, payloadHash: payloadHash, date: date)
            let authorization = try XCTUnwrap(added.first { $0.name == "Authorization" }?.value)
            return String(authorization.suffix(64))
        }
        // GET Object, with a Range header.
        XCTAssertEqual(
            try signature("GET", "https://examplebucket.s3.amazonaws.com/test.txt", [(name: "Range", value: "bytes=0-9")], payloadHash: empty),
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        // PUT Object, with a date header, storage class and a body.
        let body = Array("Welcome to Amazon S3.".utf8)
        XCTAssertEqual(
            try signature(
                "PUT", "https://examplebucket.s3.amazonaws.com/test$file.text",
                [(name: "Date", value: "Fri, 24 May 2013 00:00:00 GMT"), (name: "x-amz-storage-class", value: "REDUCED_REDUNDANCY")],
                payloadHash: SigV4Signer.payloadHash(body)),
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
        // GET Bucket lifecycle (a query parameter without a value).
        XCTAssertEqual(
            try signature("GET", "https://examplebucket.s3.amazonaws.com/?lifecycle", [], payloadHash: empty),
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        // GET Bucket (ListObjects) with max-keys and prefix.
        XCTAssertEqual(
            try signature("GET", "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J", [], payloadHash: empty),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    func testS3PathsAreSignedAsSentAndHostCarriesItsPort() throws {
        let signer = SigV4Signer(credentials: AWSCredentials(accessKeyID: "k", secretAccessKey: "s"), region: "us-east-1")
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:8333/bucket/a%20b/./c%2Bd"))
        let canonical = signer.canonicalRequest(
            method: "GET", url: url, headers: [(name: "Host", value: SigV4Signer.hostHeader(url))], payloadHash: "x")
        XCTAssertEqual(canonical.text.split(separator: "\n", omittingEmptySubsequences: false)[1], "/bucket/a%20b/./c%2Bd")
        XCTAssertEqual(SigV4Signer.hostHeader(url), "127.0.0.1:8333")
        XCTAssertEqual(SigV4Signer.hostHeader(try XCTUnwrap(URL(string: "https://h.example:443/x"))), "h.example")
        XCTAssertEqual(SigV4Signer.timestamp(Date(timeIntervalSince1970: 951_782_400)), "20000229T000000Z")
        XCTAssertFalse("\(AWSCredentials(accessKeyID: "AKID", secretAccessKey: "topsecret"))".contains("topsecret"))
    }
}
