import Fetch
import Pipeline

/// The options the `google` and `graph` sources share, declared and read once: the calendar, the service's
/// address, incremental runs, the page size, and the HTTP groups (`HTTPOptions.auth()`: the OAuth access token
/// in `bearer_token`; `HTTPOptions.client()`: timeouts, retries, rate).
struct CloudOptions {
    var baseURL: String
    var incremental: Bool
    var pageSize: Int
    var api: CloudAPI

    /// The shared declarations; `calendar` and `baseURL` describe the service's.
    static func docs(calendar: OptionDoc, baseURL: String, pageSize: (default: Int, maximum: Int)) -> [OptionDoc] {
        [
            calendar,
            OptionDoc("base_url", "url", "the API's address (tests point it at a local server)", default: baseURL),
            OptionDoc("incremental", "boolean", "keep the service's sync token in the plugin's state and read only what changed on the next run "
                      + "(a delta feed: needs a sqlite sink); false reads the whole window every run", default: "true"),
            OptionDoc("page_size", "integer", "events asked for per page (1-\(pageSize.maximum))", default: String(pageSize.default)),
        ] + HTTPOptions.auth() + HTTPOptions.client()
    }

    /// Reads the shared options; nil when one is wrong (each problem reported on its option).
    static func read(_ options: PluginOptions, baseURL: String, pageSize: (default: Int, maximum: Int), service: String,
                     tokenHelp: String) -> CloudOptions? {
        var base = options.string("base_url", default: baseURL)
        while base.hasSuffix("/") { base.removeLast() }
        let incremental = options.bool("incremental", default: true)
        let size = options.integer("page_size", default: pageSize.default, range: 1...pageSize.maximum)
        let access = HTTPOptions.access(options, netrcDefault: false)
        let settings = HTTPSettings(HTTPOptions.clientOptions(options))
        guard let access else { return nil }
        let credentials = access.credentials
        if credentials.username != nil {
            options.report("username", "\(service) takes an OAuth access token in \"bearer_token\", not a user name and password")
            return nil
        }
        let hasAuthorizationHeader = credentials.headers.keys.contains { $0.lowercased() == "authorization" }
        if credentials.bearerToken == nil && !hasAuthorizationHeader && !credentials.useNetrc {
            options.report("bearer_token", "missing: \(service) needs an OAuth access token (\"bearer_token\": \"${TOKEN}\"); \(tokenHelp)")
            return nil
        }
        if credentials.bearerToken?.isEmpty == true {
            options.report("bearer_token", "empty (is the variable it names set?); \(tokenHelp)")
            return nil
        }
        let client = options.environment.httpClient(settings: settings)
        return CloudOptions(baseURL: base, incremental: incremental, pageSize: size,
                            api: CloudAPI(client: client, credentials: credentials, service: service, tokenHelp: tokenHelp))
    }
}
