import Foundation

/// calpipe's exit codes (the CLI takes them from here and nowhere else).
public enum ExitStatus {
    public static let done: Int32 = 0
    public static let failed: Int32 = 1
    public static let usage: Int32 = 2
    /// The run finished, but records were rejected or inputs had no events.
    public static let rejected: Int32 = 3

    /// 128 + the signal's number, as a shell reports a process a signal ended: 130 SIGINT, 143 SIGTERM.
    public static func interrupted(by signal: String) -> Int32 {
        128 + (signal == "SIGINT" ? SIGINT : SIGTERM)
    }

    /// What an interrupted run says: every local output rolled back; a remote sink cannot take back what it sent,
    /// so the records it reported (but the failed ones) are named: `interrupted by SIGINT: rolled back, nothing
    /// was written but the 30 records remote x had sent`.
    public static func interruptedText(by signal: String, report: RunReport, remoteSinks: [String]) -> String {
        var text = "interrupted by \(signal): rolled back, nothing was written"
        let sent = remoteSinks.compactMap { sink -> String? in
            let outcomes = report.outcomes(of: sink)
            let n = RecordOutcome.allCases.filter { $0 != .failed }.reduce(0) { $0 + outcomes[$1] }
            return n == 0 ? nil : "the \(n) record\(n == 1 ? "" : "s") \(sink) had sent"
        }
        if !sent.isEmpty { text += " but " + sent.joined(separator: " and ") }
        return text
    }

    /// How a run that did not throw ended: 1 when sources failed (their rows were kept) or a sink reported
    /// records `.failed` (every output was committed all the same), 3 when records were rejected or inputs had no
    /// events, else 0; with the reason `--summary-json` gives.
    public static func of(_ report: RunReport) -> (code: Int32, reason: String) {
        if !report.keptSources.isEmpty { return (failed, "sources failed or came back empty; their rows were kept") }
        if report.recordsFailed > 0 { return (failed, "records failed to write; the other records and outputs were committed") }
        if !report.rejections.isEmpty { return (rejected, "rejected records") }
        if !report.emptyResults.isEmpty { return (rejected, "inputs without events") }
        return (done, "done")
    }
}

extension CalpipeError {
    /// Any error as a user sees it. Ours pass through; an error of another kind keeps its text, except
    /// Foundation's (and the C library's), which is said in our words, the original kept as `cause`.
    public init(_ error: any Error) {
        switch error {
        case let e as CalpipeError: self = e
        case let e as any CalpipeErrorConvertible: self = e.calpipeError
        default:
            if let text = Self.systemText(error) {
                self.init(text.message, file: text.file, cause: error)
            } else {
                self.init(String(describing: error), cause: error)
            }
        }
    }

    /// The one place a thrown error becomes output: the lines for standard error (every problem of a pipeline
    /// file, each on its own line; `calpipe: error: ...` for a failure) and the exit code.
    public static func report(_ error: any Error) -> (lines: [String], exitCode: Int32) {
        if let errors = error as? ConfigErrors { return (errors.issues.map(\.description), ExitStatus.usage) }
        let problem = CalpipeError(error)
        return ([problem.kind == .usage ? problem.description : "calpipe: error: " + problem.description], problem.exitCode)
    }

    /// Foundation's errors (NSError, CocoaError, POSIXError, URLError) in our words; nil for other errors.
    static func systemText(_ error: any Error) -> (message: String, file: String?)? {
        let isFoundation = error is CocoaError || error is POSIXError || error is URLError || type(of: error) is NSError.Type
        guard isFoundation else { return nil }
        let ns = error as NSError
        let file = ns.userInfo[NSFilePathErrorKey] as? String  // (not a URL: it may hold credentials)
        if ns.domain == NSPOSIXErrorDomain { return (FileProblem.reason(errorNumber: Int32(ns.code)), file) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return (FileProblem.reason(errorNumber: Int32(underlying.code)), file)
        }
        if ns.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: ns.code) {
            case .fileNoSuchFile, .fileReadNoSuchFile: return ("no such file", file)
            case .fileReadNoPermission, .fileWriteNoPermission: return ("permission denied", file)
            case .fileWriteOutOfSpace: return ("the disk is full", file)
            case .fileWriteVolumeReadOnly: return ("the file system is read-only", file)
            case .fileReadCorruptFile, .fileReadInapplicableStringEncoding: return ("the file could not be decoded", file)
            default: break
            }
        }
        if ns.domain == NSURLErrorDomain { return ("the request failed (URL error \(ns.code))", file) }
        return ("unexpected system error (\(ns.domain) \(ns.code))", file)
    }
}
