import Fetch
import Pipeline

extension CalDAVServerSource {
    /// The `caldav` source's options.
    package struct Options: OptionConfig {
        var url = ""
        var calendars: [String]?
        var sync = false
        var batchSize = 100
        var auth = HTTPAuthOptions()
        /// No rate limit by default (an account's own server), and patience for a large calendar-query: a server
        /// may take many seconds before the first byte of its answer (Radicale: about 10 s for 10,000 events).
        var client = HTTPClientOptions(timeout: 600, connectTimeout: 60, requestsPerSecond: 0)

        package init() {}

        package static let options = OptionSpec<Options> {
            Key("url", \.url, .url, required: true, "the server's address (its root, the calendar home or one calendar); the calendars are found from it")
            Key("calendars", \.calendars, .strings, "the calendars to read, by name (displayname) or href", default: "every calendar that holds events")
            Key("sync", \.sync, .boolean,
                "after the first run, read only what changed (sync-collection, RFC 6578) and send it as changes and deletions; needs sinks that apply deletions (sqlite)")
            Key("batch_size", \.batchSize, .integer(in: 1...1000), "resources asked for in one calendar-multiget")
            Include(\.auth)
            Include(\.client)
        }
    }
}

extension CalDAVClient {
    /// The client a CalDAV plugin's options ask for, taking turns at each host with the pipeline's other clients.
    convenience init(auth: HTTPAuthOptions, client: HTTPClientOptions, environment: PipelineEnvironment) {
        self.init(http: environment.httpClient(settings: HTTPSettings(client)), credentials: auth.access.credentials)
    }
}
