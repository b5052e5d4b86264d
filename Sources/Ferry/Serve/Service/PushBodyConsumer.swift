/// Reads a push body as it arrives, on the connection's thread: each change is parsed and
/// checked when its last byte is here, so the server holds parsed changes, not the body, and a
/// bad change is answered `400` at once, the rest of the body never read.
final class PushBodyConsumer: HTTPBodyConsumer {
    private var decoder = PushRequestDecoder()

    var retainedBytes: Int { decoder.retainedBytes }

    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPBodyRejection) {
        do throws(RemoteMessageError) { try decoder.feed(bytes) } catch { throw Self.rejection(error) }
    }

    func finish() throws(HTTPBodyRejection) -> any Sendable {
        do throws(RemoteMessageError) { return try decoder.finish() } catch { throw Self.rejection(error) }
    }

    private static func rejection(_ error: RemoteMessageError) -> HTTPBodyRejection {
        var response = HTTPResponse.error(error.isRefusedClaim ? .unprocessableContent : .badRequest, error.description)
        response.headers[RemoteProtocol.versionHeader] = String(RemoteProtocol.version)
        response.headers["Cache-Control"] = "no-store"
        return HTTPBodyRejection(response)
    }
}
