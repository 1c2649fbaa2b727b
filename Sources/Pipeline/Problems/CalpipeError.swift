import Foundation

/// What calpipe tells a person when something fails: one line saying where (file or URL, line, column, JSON
/// path) and what went wrong, and the exit code. Every error that reaches a user is one of these, or becomes
/// one (`CalpipeErrorConvertible`, `init(_:)`). `cause` keeps the underlying error (SQLite's, Foundation's) for
/// debug logs; it is never printed.
///
/// `"feed.ics:12: malformed line"`, `"pipelines/team.json: sinks[0].shape: unknown shape \"day\""`,
/// `"line 3, column 7: expected a value"` (a document from memory), `"start: expected a date"` (a record's field).
public struct CalpipeError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// A pipeline file or command line that cannot be used: nothing ran (exit 2).
        case usage
        /// The run (or a part of it) failed; every sink rolled back (exit 1).
        case failure
        /// One record cannot be read: the source rejects it and goes on (`report.reject`); a run with
        /// rejections exits 3. Sources catch this kind only, so a failure or an interruption passes through.
        case rejected
        /// A signal ("SIGINT", "SIGTERM") stopped the run; every sink rolled back (exit 128 + its number).
        case interrupted(signal: String)
    }

    public var kind: Kind
    public var message: String
    /// The file, URL or output the problem is in, as the user wrote it ("-" for standard input).
    public var file: String?
    public var line: Int?
    public var column: Int?
    /// A JSON path (`sinks[0].shape`) or a record's field (`when.begin`).
    public var path: String?
    /// The error underneath (never printed; for debug logs and for code that looks closer).
    public var cause: (any Error)?

    public init(_ message: String, kind: Kind = .failure, file: String? = nil, line: Int? = nil, column: Int? = nil,
                path: String? = nil, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.cause = cause
    }

    /// A problem in a pipeline file (exit 2): `path` is the JSON path in it, "" for the whole file.
    public static func config(file: String, path: String, _ message: String) -> CalpipeError {
        CalpipeError(message, kind: .usage, file: file, path: path.isEmpty ? nil : path)
    }

    /// A record that cannot be read (a source catches it, rejects the record and goes on).
    public static func rejected(_ message: String, file: String? = nil, line: Int? = nil, path: String? = nil) -> CalpipeError {
        CalpipeError(message, kind: .rejected, file: file, line: line, path: path)
    }

    /// A signal stopped the run: nothing was written.
    public static func interrupted(_ signal: String) -> CalpipeError {
        CalpipeError("interrupted by \(signal): nothing was written", kind: .interrupted(signal: signal))
    }

    /// The same problem, found in `file` (a message made while reading bytes from memory).
    public func inFile(_ file: String) -> CalpipeError {
        var copy = self
        copy.file = file
        return copy
    }

    /// `file:line:column: path: message`; `line L, column C: message` without a file.
    public var description: String {
        var text = ""
        if let file {
            text = file
            if let line, line > 0 { text += ":\(line)" + (column.map { $0 > 0 ? ":\($0)" : "" } ?? "") }
        } else if let line, line > 0 {
            text = "line \(line)" + (column.map { ", column \($0)" } ?? "")
        }
        if let path, !path.isEmpty { text += text.isEmpty ? path : ": " + path }
        return text.isEmpty ? message : text + ": " + message
    }

    /// 2 usage, 1 failure (also a record problem no source caught: the run failed), 130 SIGINT, 143 SIGTERM (as a
    /// shell reports a process a signal ended). A run that finished with rejections exits 3 (`ExitStatus.of`).
    public var exitCode: Int32 {
        switch kind {
        case .usage: return ExitStatus.usage
        case .failure, .rejected: return ExitStatus.failed
        case .interrupted(let signal): return ExitStatus.interrupted(by: signal)
        }
    }

    public var isInterruption: Bool {
        if case .interrupted = kind { return true }
        return false
    }

    /// Equal when they say the same (whatever their causes).
    public static func == (a: CalpipeError, b: CalpipeError) -> Bool {
        a.kind == b.kind && a.message == b.message && a.file == b.file && a.line == b.line && a.column == b.column && a.path == b.path
    }
}

/// An error type of its own (with cases code looks at, such as `FetchError`) that a user sees as a `CalpipeError`.
public protocol CalpipeErrorConvertible: Error {
    var calpipeError: CalpipeError { get }
}
