import Pipeline

extension CalDAVSink {
    /// The `caldav` sink's options.
    package struct Options: OptionConfig {
        var url = ""
        var keepRemoved = false
        var concurrency = 4
        var auth = HTTPAuthOptions()
        /// No rate limit by default (an account's own server), and patience for a large calendar-query: a server
        /// may take many seconds before the first byte of its answer (Radicale: about 10 s for 10,000 events).
        var client = HTTPClientOptions(timeout: 600, connectTimeout: 60, requestsPerSecond: 0)

        package init() {}

        package static let options = OptionSpec<Options> {
            Key("url", \.url, .url, required: true, "the calendar collection's address (create it first in the server's web interface or app)")
            Key("keep_removed", \.keepRemoved, .boolean, "leave on the server the events that left the feed (or the window) instead of deleting them")
            Key("concurrency", \.concurrency, .integer(in: 1...32), "resources prepared and sent at once")
            Include(\.auth)
            Include(\.client)
        }
    }
}
