// `ferry`: every command, without an HTTP stack, so that it starts fast. A sync with an
// http(s):// peer is handed over to `ferry-remote`, built beside it (see CommandLineProgram).
import FerryCommandLine
import Foundation

exit(await CommandLineProgram.run(httpClient: nil, remoteHelper: "ferry-remote"))
