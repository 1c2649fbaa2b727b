import Pipeline

extension SQLiteSink {
    /// The `sqlite` sink's options.
    package struct Options: OptionConfig {
        var path = OptionPath()
        var keepRemoved = false
        var sourceText = false
        var busyTimeoutMilliseconds = 30_000

        package init() {}

        package static let options = OptionSpec<Options> {
            Key("path", \.path, .path, required: true, "the database file; created when missing, upgraded in place")
            Key("keep_removed", \.keepRemoved, .boolean, "keep rows that left a feed and mark them (removed_run) instead of deleting them")
            Key("source_text", \.sourceText, .boolean,
                "also store each event's original text (ICS: BEGIN:VEVENT to END:VEVENT) in events.source_text; every property is stored in its columns either way")
            Key("busy_timeout_ms", \.busyTimeoutMilliseconds, .integer(in: 0...86_400_000),
                "how long to wait for another program writing the same database before failing")
        }
    }
}
