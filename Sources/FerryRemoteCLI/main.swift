// `ferry-remote`: the same commands as `ferry`, with URLSession for syncs with http(s)://
// peers. `ferry` runs it for those; it can also be run directly.
import FerryCommandLine
import Foundation

exit(await CommandLineProgram.run(httpClient: URLSessionHTTPClient()))
