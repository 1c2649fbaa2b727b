import ArgumentParser
import Pipeline

/// How a run reports: what `run` and `convert` share besides `--quiet`.
struct LogOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Least important messages shown: debug, info, warning or error.", valueName: "level"))
    var logLevel: LogRecord.Level = .info

    @Option(help: ArgumentHelp("text (lines for people) or json (one object per line: time, level, message, source, file, line).", valueName: "format"))
    var logFormat: LogFormat = .text

    @Option(help: ArgumentHelp("Also write the summary as JSON to FILE: counts, seconds per source, stage and sink, warnings, exit code and reason.", valueName: "file"))
    var summaryJSON: String?

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }
}

extension LogRecord.Level: ExpressibleByArgument {}
