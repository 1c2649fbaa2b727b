import Foundation

/// One message of a run, for the log: what `RunContext.info`/`warn` and the runner's rejections hand to the
/// program's logger, which prints it as text or as one JSON object per line (`--log-format json`).
public struct LogRecord: Sendable, Hashable {
    public enum Level: String, Sendable, Hashable, CaseIterable, Comparable {
        case debug, info, warning, error

        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }
        private var rank: Int { Level.allCases.firstIndex(of: self)! }
    }

    public var time: Date
    public var level: Level
    public var message: String
    /// The source being read when the message was made (its name, or its path or URL as written).
    public var source: String?
    /// The file and line the message is about, when it names them ("feeds/team.ics:12: ...").
    public var file: String?
    public var line: Int?

    public init(time: Date = Date(), level: Level, message: String, source: String? = nil, file: String? = nil, line: Int? = nil) {
        self.time = time
        self.level = level
        self.message = message
        self.source = source
        self.file = file
        self.line = line
        if file == nil, let (f, l) = Self.fileAndLine(message) {
            self.file = f
            self.line = l
        }
    }

    /// "feeds/team.ics:12: DTSTART missing" -> ("feeds/team.ics", 12); messages that name no line -> nil.
    package static func fileAndLine(_ message: String) -> (String, Int)? {
        guard let sep = message.range(of: ": ") else { return nil }
        let head = message[..<sep.lowerBound]
        guard let colon = head.lastIndex(of: ":"), let line = Int(head[head.index(after: colon)...]), colon > head.startIndex else { return nil }
        return (String(head[..<colon]), line)
    }

    /// `calpipe: warning: feeds/team.ics:12: ...`, as calpipe has always printed it.
    public var text: String { (level == .warning ? "calpipe: warning: " : "calpipe: ") + message }

    /// One JSON object: `{"time": "...", "level": "warning", "message": "...", "source": ..., "file": ..., "line": ...}`.
    public var json: String {
        var object = JSONObject()
        object["time"] = .string(Self.timestamp(time))
        object["level"] = .string(level.rawValue)
        object["message"] = .string(message)
        if let source { object["source"] = .string(source) }
        if let file { object["file"] = .string(file) }
        if let line { object["line"] = .number(Double(line)) }
        return JSONWriter(pretty: false).string(.object(object))
    }

    /// RFC 3339 in UTC with milliseconds.
    static func timestamp(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let t = CivilDateTime(secondsSinceEpoch: seconds)
        let frac = String(ms - seconds * 1000)
        return t.iso8601 + "." + String(repeating: "0", count: 3 - frac.count) + frac + "Z"
    }
}
