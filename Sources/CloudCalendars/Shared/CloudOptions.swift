import Fetch
import Pipeline

/// What the `google` and `graph` sources share about their options: the wording of the common ones, the log-in
/// rule (an OAuth access token, from `HTTPAuthOptions`' `bearer_token` or an `Authorization` header; `.netrc` holds
/// passwords, which these APIs do not take) and the
/// client they make (`HTTPClientOptions`: timeouts, retries, rate).
enum CloudOptions {
    static let baseURLDoc = "the API's address (tests point it at a local server)"
    static let incrementalDoc = "keep the service's sync state in the plugin's state and read only what changed on the next run "
        + "(a delta feed: needs a sqlite sink); false reads the whole window every run"

    /// Reports a missing or unusable token on the options at `auth`.
    static func checkLogIn<Config: OptionConfig>(_ auth: HTTPAuthOptions, at path: WritableKeyPath<Config, HTTPAuthOptions>, context: OptionContext<Config>,
                                                 service: String, tokenHelp: String) {
        if auth.username != nil {
            context.report(path.appending(path: \.username), "\(service) takes an OAuth access token in \"bearer_token\", not a user name and password")
        }
        let hasAuthorizationHeader = auth.headers.contains { $0.key.lowercased() == "authorization" }
        if let token = auth.bearerToken {
            if token.reveal().isEmpty { context.report(path.appending(path: \.bearerToken), "empty (is the variable it names set?); \(tokenHelp)") }
        } else if !hasAuthorizationHeader {
            context.report(path.appending(path: \.bearerToken), "missing: \(service) needs an OAuth access token (\"bearer_token\": \"${TOKEN}\"); \(tokenHelp)")
        }
    }

    /// The service's API as the source calls it, with the pipeline's HTTP client (its turns at each host).
    static func api(auth: HTTPAuthOptions, client: HTTPClientOptions, environment: PipelineEnvironment, service: String, tokenHelp: String) -> CloudAPI {
        CloudAPI(client: environment.httpClient(settings: HTTPSettings(client)), credentials: auth.access.credentials, service: service, tokenHelp: tokenHelp)
    }

    /// `url` without a trailing "/".
    static func base(_ url: String) -> String {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }
}
