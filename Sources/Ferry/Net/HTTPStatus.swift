/// An HTTP response status: the code a client acts on and the reason phrase people read.
///
/// Two statuses are equal when their codes are, whatever the reason phrase says.
///
/// ```swift
/// HTTPResponse(status: .notFound)
/// HTTPStatus(code: 422).reason   // "Unprocessable Content"
/// ```
public struct HTTPStatus: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The three-digit code, such as `404`.
    public let code: Int
    /// The reason phrase sent after the code, such as `Not Found`.
    public let reason: String

    /// Makes a status; without a reason, the standard phrase for the code is used.
    /// - Parameters:
    ///   - code: a code from 100 to 999.
    ///   - reason: the reason phrase; `nil` picks the standard one (or an empty phrase).
    public init(code: Int, reason: String? = nil) {
        self.code = code
        self.reason = reason ?? Self.standardReasons[code] ?? ""
    }

    /// `200 OK`, or `404 Not Found`.
    /// The code and reason, such as `404 Not Found`.
    public var description: String { "\(code) \(reason)" }

    /// A status from its code, such as `200` (in tables and tests).
    public init(integerLiteral code: Int) { self.init(code: code) }

    /// Whether the request succeeded (`2xx`).
    public var isSuccess: Bool { (200..<300).contains(code) }

    /// Whether the status is in `range`, as in `case 500..<600:`.
    public static func ~= (range: Range<Int>, status: HTTPStatus) -> Bool { range.contains(status.code) }

    /// Whether the status is informational (1xx).
    public var isInformational: Bool { (100..<200).contains(code) }

    /// Whether a response with this status never has a body (1xx, 204, 304).
    public var forbidsBody: Bool { isInformational || code == 204 || code == 304 }

    /// Compares codes only.
    public static func == (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `100 Continue`.
    public static let `continue` = HTTPStatus(code: 100)
    /// `200 OK`.
    public static let ok = HTTPStatus(code: 200)
    /// `201 Created`.
    public static let created = HTTPStatus(code: 201)
    /// `202 Accepted`.
    public static let accepted = HTTPStatus(code: 202)
    /// `204 No Content`.
    public static let noContent = HTTPStatus(code: 204)
    /// `206 Partial Content`: the range asked for (`Range: bytes=0-99`).
    public static let partialContent = HTTPStatus(code: 206)
    /// `304 Not Modified`.
    public static let notModified = HTTPStatus(code: 304)
    /// `400 Bad Request`.
    public static let badRequest = HTTPStatus(code: 400)
    /// `401 Unauthorized`.
    public static let unauthorized = HTTPStatus(code: 401)
    /// `403 Forbidden`.
    public static let forbidden = HTTPStatus(code: 403)
    /// `404 Not Found`.
    public static let notFound = HTTPStatus(code: 404)
    /// `405 Method Not Allowed`.
    public static let methodNotAllowed = HTTPStatus(code: 405)
    /// `408 Request Timeout`.
    public static let requestTimeout = HTTPStatus(code: 408)
    /// `409 Conflict`.
    public static let conflict = HTTPStatus(code: 409)
    /// `410 Gone`.
    public static let gone = HTTPStatus(code: 410)
    /// `411 Length Required`.
    public static let lengthRequired = HTTPStatus(code: 411)
    /// `412 Precondition Failed`.
    public static let preconditionFailed = HTTPStatus(code: 412)
    /// `413 Content Too Large`.
    public static let payloadTooLarge = HTTPStatus(code: 413)
    /// `414 URI Too Long`.
    public static let uriTooLong = HTTPStatus(code: 414)
    /// `415 Unsupported Media Type`.
    public static let unsupportedMediaType = HTTPStatus(code: 415)
    /// `416 Range Not Satisfiable`.
    public static let rangeNotSatisfiable = HTTPStatus(code: 416)
    /// `422 Unprocessable Content`.
    public static let unprocessableContent = HTTPStatus(code: 422)
    /// `429 Too Many Requests`.
    public static let tooManyRequests = HTTPStatus(code: 429)
    /// `431 Request Header Fields Too Large`.
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    /// `500 Internal Server Error`.
    public static let internalServerError = HTTPStatus(code: 500)
    /// `501 Not Implemented`.
    public static let notImplemented = HTTPStatus(code: 501)
    /// `502 Bad Gateway`: a proxy got no good answer from the server behind it.
    public static let badGateway = HTTPStatus(code: 502)
    /// `503 Service Unavailable`.
    public static let serviceUnavailable = HTTPStatus(code: 503)
    /// `504 Gateway Timeout`: a proxy got no answer in time from the server behind it.
    public static let gatewayTimeout = HTTPStatus(code: 504)
    /// `505 HTTP Version Not Supported`.
    public static let httpVersionNotSupported = HTTPStatus(code: 505)

    private static let standardReasons: [Int: String] = [
        100: "Continue", 200: "OK", 201: "Created", 202: "Accepted", 204: "No Content",
        206: "Partial Content", 301: "Moved Permanently", 302: "Found", 304: "Not Modified",
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout", 409: "Conflict",
        410: "Gone", 411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large",
        414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 422: "Unprocessable Content", 428: "Precondition Required",
        429: "Too Many Requests", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
        501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
        505: "HTTP Version Not Supported",
    ]
}
