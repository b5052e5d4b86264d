#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Asks for an encrypted hub's passphrase on the terminal (`/dev/tty`, echo off), so that it
/// never goes through argv or a shell history. `nil` when there is no terminal (a script gives
/// `$FERRY_HUB_PASSPHRASE` instead; standard input and error must both be terminals) or nothing
/// was typed.
enum PassphrasePrompt {
    static func ask(for location: String) -> String? {
        // Only for a person at a terminal: never for a script, a pipe or a test.
        guard isatty(0) == 1, isatty(2) == 1 else { return nil }
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        guard isatty(tty) == 1 else { return nil }
        let prompt = Array("passphrase for the hub at \(location): ".utf8)
        _ = prompt.withUnsafeBytes { write(tty, $0.baseAddress, $0.count) }
        var saved = termios()
        let canHide = tcgetattr(tty, &saved) == 0
        if canHide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(tty, TCSANOW, &quiet)
        }
        defer {
            if canHide { _ = tcsetattr(tty, TCSANOW, &saved) }
            _ = write(tty, "\n", 1)
        }
        var typed: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") {
            typed.append(byte)
            if typed.count > 4096 { break }
        }
        return typed.isEmpty ? nil : String(decoding: typed, as: UTF8.self)
    }
}
