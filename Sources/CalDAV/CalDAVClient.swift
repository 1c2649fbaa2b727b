import Fetch
import Foundation
import Pipeline

/// calpipe's HTTP client (`HTTPFetcher`: shared host turns, retries for idempotent methods only, redaction) with
/// one login, speaking WebDAV: PROPFIND and REPORT with XML bodies, PUT and DELETE with preconditions. Hrefs the
/// server answers are resolved against the address they came from. Answers the plugins must read (207, 403,
/// 404, 409, 412) are returned; a refused login and other failures throw, in one line naming the address.
final class CalDAVClient: Sendable {
    let http: HTTPFetcher
    let credentials: RemoteCredentials

    init(http: HTTPFetcher, credentials: RemoteCredentials) {
        self.http = http
        self.credentials = credentials
    }

    /// The address of `href` as seen from `base` (hrefs are usually absolute paths).
    static func resolve(_ href: String, against base: String) -> String {
        guard let baseURL = URL(string: base), let url = URL(string: href, relativeTo: baseURL) else { return href }
        return url.absoluteString
    }

    /// The path of an address ("/alice/work/"), the form hrefs take in answers.
    static func path(of url: String) -> String {
        URLComponents(string: url)?.percentEncodedPath ?? url
    }

    /// Sends a WebDAV request with an XML body (`Depth` when given).
    func xml(_ method: String, _ url: String, depth: String?, body: String, into destination: BodyDestination = .memory) throws -> FetchResult {
        var headers = ["Content-Type": "application/xml; charset=utf-8"]
        if let depth { headers["Depth"] = depth }
        return try send(HTTPRequest(method: method, url: url, headers: headers, body: Array(body.utf8), credentials: credentials), into: destination)
    }

    /// Sends a request with this client's login; a refused login fails at once (exit 1, no retries).
    func send(_ request: HTTPRequest, into destination: BodyDestination = .memory) throws -> FetchResult {
        var request = request
        request.credentials = credentials
        let result = try http.send(request, policy: CachePolicy(defaultTTL: 0), into: destination)
        if result.response.status == 401 {
            throw CalpipeError("\(result.url): the server refused the login (401 Unauthorized); check the username and password (or bearer_token)")
        }
        return result
    }

    /// The one line for an answer the caller cannot use: method, address, status and the server's words.
    static func unexpected(_ method: String, _ result: FetchResult, expected: String) -> CalpipeError {
        let preview = result.response.bodyPreview
        return CalpipeError("\(result.url): \(method) answered \(result.response.status)\(preview.isEmpty ? "" : " (\(preview))"), expected \(expected)")
    }
}
