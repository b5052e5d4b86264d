import Ferry
import Foundation

/// Ferry's own crypto (Ed25519, X25519, ChaCha20-Poly1305, scrypt): per-operation costs, and
/// the AEAD's throughput sealing and opening 1 MiB messages beside `openssl speed -evp
/// chacha20-poly1305` on the same machine (issue 51's goal: at least 25% of OpenSSL's, both
/// ways; a figure to compare, OpenSSL is not a dependency).
func cryptoBenchmarks() throws -> [BenchmarkRow] {
    var rows: [BenchmarkRow] = []
    let key = Ed25519SigningKey.generate()
    let message = [UInt8](repeating: 0x5a, count: 256)
    var signature: [UInt8] = []
    let sign = Measure.median((0..<5).map { _ in Measure.seconds { for _ in 0..<100 { signature = key.signature(for: message) } } / 100 })
    rows.append(BenchmarkRow(name: "crypto: Ed25519 sign, 256 bytes", scale: 1, value: microseconds(sign), note: "median of 5 runs of 100"))
    var valid = true
    let verify = Measure.median((0..<5).map { _ in Measure.seconds { for _ in 0..<100 { valid = valid && key.publicKey.isValidSignature(signature, for: message) } } / 100 })
    rows.append(BenchmarkRow(name: "crypto: Ed25519 verify", scale: 1, value: microseconds(verify), note: valid ? "median of 5 runs of 100" : "VERIFY FAILED"))
    let mine = X25519PrivateKey.generate(), theirs = X25519PrivateKey.generate()
    let agree = Measure.median((0..<5).map { _ in Measure.seconds { for _ in 0..<100 { _ = try? mine.sharedSecret(with: theirs.publicKey) } } / 100 })
    rows.append(BenchmarkRow(name: "crypto: X25519 shared secret", scale: 1, value: microseconds(agree), note: "median of 5 runs of 100"))

    let mebibyte = [UInt8](repeating: 0xa5, count: 1 << 20)
    let aeadKey = [UInt8](repeating: 1, count: 32)
    let openssl = opensslChaChaPolyBytesPerSecond()
    for (label, nonce) in [("ChaCha20-Poly1305", [UInt8](repeating: 2, count: 12)), ("XChaCha20-Poly1305", [UInt8](repeating: 2, count: 24))] {
        var sealed: [UInt8] = [], opened: [UInt8] = []
        // Warm-up, not counted: the first mebibyte-sized arrays come from fresh pages (mmap,
        // then a growing heap) whose first touch costs as much as the sealing itself.
        for _ in 0..<3 {
            sealed = try ChaCha20Poly1305.seal(mebibyte, key: aeadKey, nonce: nonce)
            opened = try ChaCha20Poly1305.open(sealed, key: aeadKey, nonce: nonce)
        }
        let sealing = try Measure.median((0..<5).map { _ in try Measure.seconds { sealed = try ChaCha20Poly1305.seal(mebibyte, key: aeadKey, nonce: nonce) } })
        let opening = try Measure.median((0..<5).map { _ in try Measure.seconds { opened = try ChaCha20Poly1305.open(sealed, key: aeadKey, nonce: nonce) } })
        for (step, seconds) in [("seal", sealing), ("open", opening)] {
            rows.append(aeadRow("crypto: \(label) \(step), 1 MiB", rate: Double(1 << 20) / seconds, openssl: openssl, roundTrip: opened == mebibyte))
        }
    }
    let passphrase = Array("correct horse battery staple".utf8), salt = [UInt8](repeating: 9, count: 16)
    let scrypt = try Measure.seconds { _ = try Scrypt.derive(passphrase: passphrase, salt: salt, parameters: .interactive, length: 32) }
    rows.append(BenchmarkRow(name: "crypto: scrypt N=2^17 r=8 p=1", scale: 1, value: Format.seconds(scrypt), note: "128 MiB, one passphrase check"))
    return rows
}

/// A row of the AEAD's throughput, beside OpenSSL's when there is a figure for it.
private func aeadRow(_ name: String, rate: Double, openssl: Double?, roundTrip: Bool) -> BenchmarkRow {
    var row = BenchmarkRow(name: name, scale: 1, value: String(format: "%.0f MB/s", rate / 1e6))
    if let openssl {
        row.target = "≥ 25% of OpenSSL's"
        row.met = rate >= 0.25 * openssl && roundTrip
        row.note = String(format: "%.0f%% of openssl speed -evp chacha20-poly1305 (%.0f MB/s)", 100 * rate / openssl, openssl / 1e6)
    } else {
        row.note = "openssl not found: no comparison"
    }
    if !roundTrip { row.note += "; ROUND TRIP FAILED" }
    return row
}

private func microseconds(_ seconds: Double) -> String {
    String(format: "%.1f µs", seconds * 1e6)
}

/// `openssl speed -evp chacha20-poly1305` on 1 MiB blocks, in bytes per second; `nil` without openssl.
private func opensslChaChaPolyBytesPerSecond() -> Double? {
    let output = workDirectory + "/openssl-speed.txt"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl", "speed", "-evp", "chacha20-poly1305", "-bytes", "1048576", "-seconds", "2"]
    guard FileManager.default.createFile(atPath: output, contents: nil), let handle = FileHandle(forWritingAtPath: output) else { return nil }
    process.standardOutput = handle
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    process.waitUntilExit()
    guard process.terminationStatus == 0, let text = try? String(contentsOfFile: output, encoding: .utf8),
          let line = text.split(separator: "\n").last(where: { $0.lowercased().hasPrefix("chacha20-poly1305") }),
          let figure = line.split(separator: " ").last, figure.hasSuffix("k"), let thousands = Double(figure.dropLast())
    else { return nil }
    return thousands * 1000
}
