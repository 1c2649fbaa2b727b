import Foundation

/// What a plugin may know about the pipeline it is part of, when it is built and when it runs.
public struct PipelineEnvironment: Sendable {
    /// The pipeline file as given by the user ("pipelines/team.json"), for messages.
    public var pipelineFile: String
    /// The folder relative paths resolve against: the pipeline file's folder.
    public var baseDirectory: URL
    public var name: String
    /// Whether `name` was written in the pipeline (else it is the file's name, or the input's in `calpipe convert`):
    /// a sink may then prefer a name the data gives (the `html` sink's title: the calendar's name).
    public var nameWritten = true
    /// The output zone: day entries and windows are in it; floating times are read in it.
    public var zone: Zone
    public var window: Window?
    /// The pipeline's default place (`"location"`), for the forecast stage.
    public var location: JSONValue?
    public var environment: [String: String]
    public var zones: ZoneDatabase
    /// "Today" in the pipeline's zone, fixed once per run so every relative date agrees.
    public var today: CivilDate
    /// The run's time (UTC seconds), fixed once per run: `SOURCE_DATE_EPOCH` when set, else the clock when the
    /// pipeline was loaded. Outputs that carry a time stamp (DTSTAMP) use it, so a run is reproducible.
    public var now: Int64
    /// The pipeline's `"locale"` (default "en"): weekday names in exported days.
    public var locale: String = "en"
    /// Fetches URL inputs; installed by the executable. Nil: URL inputs fail with a clear error.
    package var fetcher: (any RemoteFetcher)?

    public init(pipelineFile: String, baseDirectory: URL, name: String, zone: Zone, window: Window?, location: JSONValue? = nil,
                environment: [String: String], zones: ZoneDatabase, today: CivilDate, now: Int64? = nil) {
        self.pipelineFile = pipelineFile
        self.baseDirectory = baseDirectory
        self.name = name
        self.zone = zone
        self.window = window
        self.location = location
        self.environment = environment
        self.zones = zones
        self.today = today
        // Without a run time: the start of "today", so tests and library users get a fixed value.
        self.now = now ?? Int64(today.daysSinceEpoch) * 86_400
    }

    /// Resolves a path from the pipeline file against its folder; "-" (stdin/stdout) and absolute paths stay.
    public func resolve(path: String) -> String {
        if path == "-" || path.hasPrefix("/") { return path }
        if path.hasPrefix("~/"), let home = environment["HOME"] { return home + path.dropFirst(1) }
        return baseDirectory.appendingPathComponent(path).standardizedFileURL.path
    }

    /// A path from the pipeline file as the user can use it in messages: as written when the pipeline file is in the
    /// current folder (or the path is absolute, "-" or a URL), else with the pipeline file's folder in front
    /// (`pipelines/../out/a.json` read as `out/a.json`), so it names the file from where the user stands.
    public func displayPath(_ written: String) -> String {
        if written == "-" || written.hasPrefix("/") || written.hasPrefix("~") || written.contains("://") { return written }
        guard let slash = pipelineFile.lastIndex(of: "/") else { return written }
        let folder = String(pipelineFile[..<slash])
        if folder.isEmpty { return "/" + written }
        return Self.lexicallyNormalized(folder + "/" + written)
    }

    /// `a/./b/../c` -> `a/c`; leading `..` stay; never empty (".").
    static func lexicallyNormalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
                continue
            }
            if part == "..", absolute { continue }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    /// The run's time: `SOURCE_DATE_EPOCH` (seconds since 1970, as reproducible builds define it) when the
    /// environment sets it to a number, else `clock`.
    public static func runTime(environment: [String: String], clock: Date = Date()) -> Int64 {
        if let text = environment["SOURCE_DATE_EPOCH"], let seconds = Int64(text.trimmingCharacters(in: .whitespaces)) { return seconds }
        return Int64(clock.timeIntervalSince1970.rounded(.down))
    }

    /// Today in a zone, from the system clock.
    public static func today(in zone: Zone, now: Date = Date()) -> CivilDate {
        zone.local(fromUTC: Int64(now.timeIntervalSince1970.rounded(.down))).date
    }
}
