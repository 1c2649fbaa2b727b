import Foundation
import XCTest

/// Starts the built `calpipe` binary as a child process, for tests of exit codes, messages, signals and faults.
struct CalpipeProcess {
    struct Result {
        var code: Int32
        var stdout: String
        var stderr: String
        /// Ended by a signal it did not handle (`code` is then 128 + the signal's number, as a shell reports it).
        var killedBySignal = false
    }

    /// The built `calpipe`, next to the test bundle in the products folder.
    static var binary: URL { CLITests.binary }

    let process = Process()
    private let out = Pipe(), err = Pipe(), input = Pipe()

    /// Starts `calpipe arguments` in `directory` (TZ=UTC); `prefix` runs it through another program first
    /// (["setpriv", ...], ["unshare", ...]). Standard input stays open until `closeInput()`.
    init(_ arguments: [String], in directory: URL, environment: [String: String] = [:], prefix: [String] = []) throws {
        if prefix.isEmpty {
            process.executableURL = Self.binary
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = prefix + [Self.binary.path] + arguments
        }
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
    }

    func write(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Closes standard input, reads both outputs to their end and waits for the exit.
    func finish() -> Result {
        closeInput()
        // stderr on a thread of its own: a child filling one pipe must not wait for us to read the other.
        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box()
        let errDone = DispatchSemaphore(value: 0)
        let errHandle = err.fileHandleForReading
        Thread.detachNewThread {
            errBox.data = errHandle.readDataToEndOfFile()
            errDone.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errDone.wait()
        let errData = errBox.data
        process.waitUntilExit()
        let code = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return Result(code: code, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self),
                      killedBySignal: process.terminationReason == .uncaughtSignal)
    }

    /// Runs `calpipe arguments` to its end.
    static func run(_ arguments: [String], in directory: URL, stdin: String? = nil, environment: [String: String] = [:],
                    prefix: [String] = []) throws -> Result {
        let child = try CalpipeProcess(arguments, in: directory, environment: environment, prefix: prefix)
        if let stdin { child.write(stdin) }
        return child.finish()
    }

    /// The temporary files (`.NAME.calpipe-XXXXXX`) in `directory` and its subfolders.
    static func temporaryFiles(under directory: URL) -> [String] {
        let walker = FileManager.default.enumerator(atPath: directory.path)
        var found: [String] = []
        while let path = walker?.nextObject() as? String {
            if (path as NSString).lastPathComponent.contains(".calpipe-") { found.append(path) }
        }
        return found.sorted()
    }

    /// Polls until `condition` holds (at most `seconds`).
    @discardableResult
    static func wait(seconds: Double = 20, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }
}
