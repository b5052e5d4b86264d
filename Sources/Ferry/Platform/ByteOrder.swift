import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-string comparison and search on contiguous bytes with the C library's `memcmp` and
/// `memchr`, for the loops that compare or split hundreds of thousands of index lines (the
/// generic `lexicographicallyPrecedes` and `firstIndex(of:)` go element by element).
enum ByteOrder {
    /// The order of `a` and `b` as unsigned bytes: negative, zero or positive.
    static func compare<A: ContiguousBytes, B: ContiguousBytes>(_ a: A, _ b: B) -> Int {
        a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                let common = min(left.count, right.count)
                if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let order = memcmp(l, r, common)
                    if order != 0 { return Int(order) }
                }
                return left.count - right.count
            }
        }
    }

    /// Whether `a` sorts before `b` as unsigned bytes.
    static func precedes<A: ContiguousBytes, B: ContiguousBytes>(_ a: A, _ b: B) -> Bool {
        compare(a, b) < 0
    }

    /// The index of the first `byte` in `bytes`, or `nil`.
    static func firstIndex(of byte: UInt8, in bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBytes { buffer -> Int? in
            guard let base = buffer.baseAddress, buffer.count > 0,
                let found = memchr(base, Int32(byte), buffer.count)
            else { return nil }
            return bytes.startIndex + (UnsafeRawPointer(found) - base)
        }
    }
}
