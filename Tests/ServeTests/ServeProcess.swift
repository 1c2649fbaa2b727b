import Foundation
import XCTest

/// `calpipe serve` started from the built binary on a free loopback port (`--listen 127.0.0.1:0`; the port is
/// read from its "listening on" line), in a folder of its own with calpipe's cache and state folders in it.
final class ServeProcess: @unchecked Sendable {  // errorText behind the lock
    let process = Process()
    private(set) var port = 0
    private let lock = NSLock()
    private var errorText = ""
    private let errorPipe = Pipe()

    static var binary: URL {
        let bundle = Bundle(for: ServeProcess.self).bundleURL
        for folder in [bundle, bundle.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent("calpipe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return bundle.appendingPathComponent("calpipe")
    }

    /// The environment of every calpipe the tests start: fixed "now", UTC, caches and state under `folder`.
    static func environment(folder: URL) -> [String: String] {
        ["TZ": "UTC", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": folder.path,
         "SOURCE_DATE_EPOCH": "1796083200", "CALPIPE_CACHE": folder.appendingPathComponent("cache").path]
    }

    /// Starts it and waits (at most 60 s) for its "listening on" line. Throws XCTSkip when this calpipe was built
    /// without the Server trait.
    init(_ arguments: [String], in folder: URL) throws {
        process.executableURL = Self.binary
        process.arguments = ["serve", "--listen", "127.0.0.1:0"] + arguments
        process.currentDirectoryURL = folder
        process.environment = Self.environment(folder: folder)
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let handle = errorPipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                lock.lock()
                errorText += String(decoding: data, as: UTF8.self)
                lock.unlock()
            }
        }
        let started = Date()
        while Date().timeIntervalSince(started) < 60 {
            let text = stderr
            if text.contains("built without the server") {
                process.waitUntilExit()
                throw XCTSkip("calpipe was built without the Server trait (swift build --traits Server)")
            }
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits) { self.port = port; return }
            }
            if !process.isRunning { throw LoopbackHTTP.Failure("calpipe serve ended (\(process.terminationStatus)): \(text)") }
            Thread.sleep(forTimeInterval: 0.02)
        }
        stop()
        throw LoopbackHTTP.Failure("calpipe serve did not listen within 60 s: \(stderr)")
    }

    var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return errorText
    }

    var http: LoopbackHTTP { LoopbackHTTP(port: port) }

    /// Sends SIGTERM and waits for the exit (at most `seconds`); the exit status, nil when it did not end.
    func terminate(within seconds: Double = 10) -> Int32? {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return process.isRunning ? nil : process.terminationStatus
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// Polls `condition` every 50 ms for at most `seconds`.
    @discardableResult
    static func wait(seconds: Double = 30, until condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while try !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return true
    }
}
