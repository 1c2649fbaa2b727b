import Foundation
import XCTest

/// Runs the built `calpipe` binary (next to the test bundle), as cron and users do.
struct CalpipeProcess {
    struct Result {
        var code: Int32
        var stdout: String
        var stderr: String
        var seconds: Double
    }

    static var binary: URL {
        let bundle = Bundle(for: RecordedServer.self).bundleURL
        for folder in [bundle, bundle.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent("calpipe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return bundle.appendingPathComponent("calpipe")
    }

    /// Runs `calpipe ARGUMENTS` in `directory` with the given variables added to a minimal environment.
    static func run(_ arguments: [String], in directory: URL, environment: [String: String]) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ["TZ": "UTC", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory.path]
        for (k, v) in environment { env[k] = v }
        process.environment = env
        // Standard output to a file (no second pipe to drain while standard error is read).
        let outFile = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-stdout-\(UUID().uuidString)")
        XCTAssertTrue(FileManager.default.createFile(atPath: outFile.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: outFile) }
        let out = try FileHandle(forWritingTo: outFile)
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let started = Date()
        try process.run()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try out.close()
        let outData = try Data(contentsOf: outFile)
        return Result(code: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self), seconds: Date().timeIntervalSince(started))
    }
}
