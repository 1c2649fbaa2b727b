import Fetch
import Pipeline

/// One calendar service's JSON API as the cloud sources call it: GET requests with the bearer token through
/// calpipe's HTTP client (retries with Retry-After, the pipeline's turns at each host), never through the HTTP
/// cache (the pages hold private data and are read once), each answer read as one JSON object.
///
/// A refused token (401/403) fails the run at once: the client does not retry it, and nothing else would help.
/// A 410 Gone is `CloudAPI.Gone` (an expired sync token or delta link: the source reads everything again). Any
/// other answer that is not 2xx fails the run with the service's own message.
struct CloudAPI {
    /// An expired sync token or delta link (HTTP 410 Gone), with the service's message. `CloudSync` starts a whole
    /// read; anywhere else it fails the run with this text.
    struct Gone: Error, CalpipeErrorConvertible {
        var url: String
        var service: String
        var message: String

        var calpipeError: CalpipeError { CalpipeError("\(url): \(service) answered 410 Gone (\(message))", cause: self) }
    }

    let client: HTTPFetcher
    let credentials: RemoteCredentials
    /// The service's name for messages ("Google Calendar").
    let service: String
    /// Where a user finds how to get a new token.
    let tokenHelp: String

    /// GETs `url` and reads its answer as a JSON object.
    func page(_ url: String, headers: [String: String] = [:], context: RunContext) throws -> JSONObject {
        let cancellation = context.cancellation
        var policy = CachePolicy(defaultTTL: 0, isCancelled: { cancellation.cancelledReason != nil })
        policy.usesCache = false
        let result = try client.send(HTTPRequest(url: url, headers: headers, credentials: credentials), policy: policy)
        for note in client.takeNotes() { context.warn(note) }
        let response = result.response
        let shown = result.url
        guard response.isSuccess else {
            let message = Self.errorMessage(response)
            switch response.status {
            case 401, 403:
                throw CalpipeError("\(shown): \(service) refused the access token (HTTP \(response.status)\(message.map { ": " + $0 } ?? "")); \(tokenHelp)")
            case 410:
                throw Gone(url: shown, service: service, message: message ?? "no message")
            default:
                throw CalpipeError("\(shown): \(service) answered HTTP \(response.status)\(message.map { " (\($0))" } ?? "")")
            }
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes: response.body)
        } catch let error as JSONSyntaxError {
            throw CalpipeError("\(shown): \(service) answered something that is not JSON (\(error.description))")
        }
        guard let object = value.objectValue else {
            throw CalpipeError("\(shown): expected a JSON object from \(service), got \(value.kindDescription)")
        }
        return object
    }

    /// The message of a JSON error answer (`{"error": {"message": ...}}`, as both services write it), else the
    /// start of the body.
    static func errorMessage(_ response: HTTPResponse) -> String? {
        if let value = try? JSONParser.parse(bytes: response.body), let error = value.objectValue?["error"] {
            if let message = error.objectValue?["message"]?.stringValue, !message.isEmpty { return message }
            if let text = error.stringValue, !text.isEmpty { return text }
        }
        let preview = response.bodyPreview
        return preview.isEmpty ? nil : preview
    }
}
