#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's arguments as the bytes it was given, checked before anything reads them as text.
///
/// `CommandLine.arguments` turns bytes that are not UTF-8 into U+FFFD, so `ferry put --json` would
/// store altered data where `--file`, stdin and `import` refuse the same bytes. Every way in gives
/// the same verdict: an argument that is not UTF-8 is an error, never repaired.
///
/// ```swift
/// if let problem = ArgumentBytes.firstInvalidUTF8() { print(problem) }  // "argument 5 is not valid UTF-8 …"
/// ```
enum ArgumentBytes {
    /// Describes the first argument (after the program name) that is not valid UTF-8, if any.
    static func firstInvalidUTF8() -> String? {
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
            if let offset = invalidOffset(bytes) {
                return "argument \(index) is not valid UTF-8 (byte 0x\(String(bytes[offset], radix: 16)) at offset \(offset)); "
                    + "Ferry never repairs text: pass the data as valid UTF-8"
            }
        }
        return nil
    }

    /// The offset of the first byte that breaks UTF-8 in `bytes`, or `nil` when it is valid.
    static func invalidOffset(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += UTF8.width(scalar)
            case .emptyInput:
                return nil
            case .error:
                return offset
            }
        }
    }
}
