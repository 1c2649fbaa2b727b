import Foundation
import CalHash
import XCTest

/// Our SHA-256 against the FIPS 180-4 / NIST example vectors and against Python's hashlib on generated inputs.
final class SHA256Tests: XCTestCase {
    func testKnownVectors() {
        // FIPS 180-4 examples (NIST CSRC "SHA256.pdf", "SHA256_2.pdf") and the empty message.
        XCTAssertEqual(SHA256.hex(of: Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(of: Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // One million "a" (FIPS 180-2 appendix B.3), fed in uneven pieces.
        var hasher = SHA256()
        var left = 1_000_000
        var piece = 1
        while left > 0 {
            let n = min(piece, left)
            hasher.update(Array(repeating: UInt8(ascii: "a"), count: n))
            left -= n
            piece = piece * 3 % 1_000 + 1
        }
        XCTAssertEqual(hasher.finishHex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Every length from 0 to 300 (all padding cases around the 56- and 64-byte boundaries) and a few larger
    /// inputs, in one and in many pieces, against `python3 -c hashlib.sha256`.
    func testAgainstPythonHashlib() throws {
        var inputs: [[UInt8]] = (0...300).map { n in (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) } }
        var state: UInt64 = 0x9e3779b97f4a7c15
        for size in [4_095, 65_536, 1_000_003] {
            inputs.append((0..<size).map { _ in
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                return UInt8(truncatingIfNeeded: state)
            })
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-sha-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (i, input) in inputs.enumerated() { try Data(input).write(to: folder.appendingPathComponent(String(format: "%04d", i))) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import hashlib, os, sys
            d = sys.argv[1]
            for name in sorted(os.listdir(d)):
                print(hashlib.sha256(open(os.path.join(d, name), "rb").read()).hexdigest())
            """, folder.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let expected = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(expected.count, inputs.count)
        for (i, input) in inputs.enumerated() where i < expected.count {
            XCTAssertEqual(SHA256.hex(of: input), expected[i], "length \(input.count)")
            var pieces = SHA256()
            var offset = 0
            var step = 1
            while offset < input.count {
                let end = min(input.count, offset + step)
                input[offset..<end].withUnsafeBytes { pieces.update(buffer: $0) }
                offset = end
                step = step * 2 + 1
            }
            XCTAssertEqual(pieces.finishHex(), expected[i], "length \(input.count) in pieces")
            let path = folder.appendingPathComponent(String(format: "%04d", i)).path
            XCTAssertEqual(SHA256.digest(ofFile: path)?.hex, expected[i])
            XCTAssertEqual(SHA256.digest(ofFile: path)?.length, Int64(input.count))
        }
    }
}
