#if os(Linux)
import Foundation
import Glibc

/// The few functions of libcurl's easy interface that ``CurlHTTPStream`` calls, looked up in
/// the `libcurl.so.4` that FoundationNetworking already loads into the process (the package
/// adds no dependency: this is the library `URLSession` itself runs on, on Linux).
///
/// `curl_easy_setopt` and `curl_easy_getinfo` are variadic in C. They are called here through
/// fixed signatures of one pointer-sized argument, which the x86-64 and AArch64 Linux calling
/// conventions pass the same way as a variadic one (this file is compiled on Linux only).
struct LibCurl: @unchecked Sendable {
    typealias Handle = OpaquePointer

    // Options (`CURLOPT_*`: a type base of 0 for longs, 10000 for pointers, 20000 for functions).
    static let url: Int32 = 10_002
    static let writeData: Int32 = 10_001
    static let writeFunction: Int32 = 20_011
    static let headerData: Int32 = 10_029
    static let headerFunction: Int32 = 20_079
    static let httpHeader: Int32 = 10_023
    static let customRequest: Int32 = 10_036
    static let postFields: Int32 = 10_015
    static let postFieldSize: Int32 = 60
    static let noSignal: Int32 = 99
    static let noProgress: Int32 = 43
    static let transferInfoFunction: Int32 = 20_219
    static let transferInfoData: Int32 = 10_057
    static let openSocketFunction: Int32 = 20_163
    static let openSocketData: Int32 = 10_164
    static let closeSocketFunction: Int32 = 20_208
    static let closeSocketData: Int32 = 10_209
    static let lowSpeedLimit: Int32 = 19
    static let lowSpeedTime: Int32 = 20
    static let connectTimeout: Int32 = 78
    static let errorBuffer: Int32 = 10_010
    static let httpVersion: Int32 = 84
    static let tcpKeepAlive: Int32 = 213
    static let protocolsString: Int32 = 10_318
    static let caInfo: Int32 = 10_065
    /// `CURL_HTTP_VERSION_1_1`.
    static let http11 = 2
    /// `CURLINFO_RESPONSE_CODE` (`CURLINFO_LONG + 2`).
    static let responseCode: Int32 = 0x20_0002
    /// `CURL_ERROR_SIZE`: the error buffer's length.
    static let errorBufferSize = 256

    /// `CURLcode` values a caller tells apart.
    enum Code {
        static let ok: Int32 = 0
        static let unsupportedProtocol: Int32 = 1
        static let malformedURL: Int32 = 3
        static let timedOut: Int32 = 28
        static let sslConnect: Int32 = 35
        static let abortedByCallback: Int32 = 42
        static let sslCertificate: Int32 = 58
        static let sslCipher: Int32 = 59
        static let peerFailedVerification: Int32 = 60
        static let sslCACertificateFile: Int32 = 77
        static let sslIssuer: Int32 = 83
        static let sslPinnedKey: Int32 = 90
        static let sslCertificateStatus: Int32 = 91

        /// Failures of the TLS setup or of the server's certificate: another try fails the same way.
        static func isTLS(_ code: Int32) -> Bool {
            [sslConnect, sslCertificate, sslCipher, peerFailedVerification, sslCACertificateFile, sslIssuer, sslPinnedKey,
                sslCertificateStatus].contains(code)
        }
    }

    /// `size_t (*)(char *, size_t, size_t, void *)`: body and header callbacks.
    typealias DataCallback = @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int
    /// `int (*)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)`.
    typealias TransferInfoCallback = @convention(c) (UnsafeMutableRawPointer?, Int64, Int64, Int64, Int64) -> Int32
    /// `curl_socket_t (*)(void *, curlsocktype, struct curl_sockaddr *)`.
    typealias OpenSocketCallback = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Int32
    /// `int (*)(void *, curl_socket_t)`.
    typealias CloseSocketCallback = @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32

    let easyInit: @convention(c) () -> Handle?
    let easyCleanup: @convention(c) (Handle?) -> Void
    let easyPerform: @convention(c) (Handle?) -> Int32
    let setPointer: @convention(c) (Handle?, Int32, UnsafeRawPointer?) -> Int32
    let setLong: @convention(c) (Handle?, Int32, Int) -> Int32
    let getLong: @convention(c) (Handle?, Int32, UnsafeMutablePointer<Int>) -> Int32
    let listAppend: @convention(c) (OpaquePointer?, UnsafePointer<CChar>) -> OpaquePointer?
    let listFree: @convention(c) (OpaquePointer?) -> Void
    let describe: @convention(c) (Int32) -> UnsafePointer<CChar>?

    /// The functions from the process's libcurl; `nil` when it cannot be found (the caller
    /// then goes on without it). The handle is never closed: FoundationNetworking keeps the
    /// library loaded for the process's life anyway.
    static func load() -> LibCurl? {
        guard let library = dlopen("libcurl.so.4", RTLD_NOW) ?? dlopen("libcurl.so", RTLD_NOW) else { return nil }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            guard let address = dlsym(library, name) else { return nil }
            return unsafeBitCast(address, to: type)
        }
        guard let easyInit = symbol("curl_easy_init", as: (@convention(c) () -> Handle?).self),
            let easyCleanup = symbol("curl_easy_cleanup", as: (@convention(c) (Handle?) -> Void).self),
            let easyPerform = symbol("curl_easy_perform", as: (@convention(c) (Handle?) -> Int32).self),
            let setPointer = symbol("curl_easy_setopt", as: (@convention(c) (Handle?, Int32, UnsafeRawPointer?) -> Int32).self),
            let setLong = symbol("curl_easy_setopt", as: (@convention(c) (Handle?, Int32, Int) -> Int32).self),
            let getLong = symbol("curl_easy_getinfo", as: (@convention(c) (Handle?, Int32, UnsafeMutablePointer<Int>) -> Int32).self),
            let listAppend = symbol("curl_slist_append", as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>) -> OpaquePointer?).self),
            let listFree = symbol("curl_slist_free_all", as: (@convention(c) (OpaquePointer?) -> Void).self),
            let describe = symbol("curl_easy_strerror", as: (@convention(c) (Int32) -> UnsafePointer<CChar>?).self)
        else { return nil }
        return LibCurl(
            easyInit: easyInit, easyCleanup: easyCleanup, easyPerform: easyPerform, setPointer: setPointer, setLong: setLong,
            getLong: getLong, listAppend: listAppend, listFree: listFree, describe: describe)
    }

    /// libcurl's one-line description of a result code.
    func message(for code: Int32) -> String {
        describe(code).map { String(cString: $0) } ?? "libcurl error \(code)"
    }
}
#endif
