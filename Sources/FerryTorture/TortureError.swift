/// Why a torture process stopped on its own (it is normally killed).
enum TortureError: Error, CustomStringConvertible {
    /// Bad command-line arguments.
    case usage(String)
    /// The library did something the torture loop does not expect.
    case unexpected(String)

    var description: String {
        switch self {
        case .usage(let message): return message
        case .unexpected(let message): return "unexpected: \(message)"
        }
    }
}
