import Foundation
import Pipeline

/// Prints a run's log records on standard error, as text or JSON lines, above the progress line (which it
/// clears first and draws again). The one place where a run's messages become output.
final class RunLogger: Sendable {
    let level: LogRecord.Level
    let format: LogOptions.LogFormat
    let quiet: Bool
    /// Whether a progress line is on the terminal; records arrive from the sinks' thread too.
    private let progressShown = Locked(false)
    /// Repeated warnings of text logs are grouped by kind (`WarningGroups`); `--log-level debug` and JSON logs
    /// get every one.
    private let groups = Locked(WarningGroups())

    init(level: LogRecord.Level, format: LogOptions.LogFormat, quiet: Bool) {
        self.level = level
        self.format = format
        self.quiet = quiet
    }

    /// Whether a progress line may be drawn: on a terminal, with text logs, not quiet.
    var showsProgress: Bool { !quiet && format == .text && Terminal.stderrIsTerminal }

    func log(_ record: LogRecord) {
        if quiet && record.level < .error { return }
        guard record.level >= level else { return }
        if record.level == .warning, format == .text, level > .debug, !groups.withLock({ $0.admit(record) }) { return }
        progressShown.withLock { shown in
            if shown {
                Terminal.clearProgress()
                shown = false
            }
            Terminal.error(format == .json ? record.json : record.text)
        }
    }

    /// One line per kind of warning that had more than were printed (see `WarningGroups`).
    func flushGroups() {
        let lines = groups.withLock { groups in
            defer { groups = WarningGroups() }
            return groups.summary()
        }
        for line in lines { log(LogRecord(level: .warning, message: line)) }
    }

    func progress(_ text: String) {
        progressShown.withLock { shown in
            Terminal.progress(text)
            shown = true
        }
    }

    func clearProgress() {
        progressShown.withLock { shown in
            if shown { Terminal.clearProgress() }
            shown = false
        }
    }
}
