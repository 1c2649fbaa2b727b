import CalpipeKit
import Foundation

// docs/architecture.md, "A source that talks to an API", shows this file from here on; ArchitectureDocsCodeTests
// checks that the page's code block is this text.
// docs:begin events-api
/// Reads a calendar service's events page by page, and on later runs only what changed since the last
/// successful run: changed and new events, and deletions. The service answers `{"items": [...],
/// "next_page_token": P}` until its last page, which carries `"next_sync_token": T` instead; asked with
/// `sync_token=T` it lists only the changes since T (a deleted event as `{"id": ..., "deleted": true}`).
final class EventsAPISource: EventSource {
    static let descriptor = SourceDescriptor(
        type: "events-api", kind: .source, summary: "a calendar service's events, then only their changes", options: Options.self,
        make: { options, context in
            let settings = HTTPSettings(options.client, base: HTTPSettings(userAgent: "events-api-example/1.0"))
            return EventsAPISource(name: options.name, url: options.url, pageSize: options.pageSize, credentials: options.auth.access.credentials,
                                   client: context.environment.httpClient(settings: settings))
        })

    /// The options, declared once: the loader decodes them (and reports every problem) before `make` runs.
    struct Options: OptionConfig {
        var name = ""
        var url = ""
        var pageSize = 100
        var auth = HTTPAuthOptions()       // headers, bearer_token, username/password, netrc, max_stale
        var client = HTTPClientOptions()   // user_agent, timeouts, retries, max_requests_per_second

        static let options = OptionSpec<Options> {
            // Every source takes `name`; this one requires it: its state is kept under it (its label), so the
            // state stays when the address changes.
            Key("name", \.name, .string, required: true, "names the source; its sync token is kept under this name")
            Key("url", \.url, .url, required: true, "the service's events address")
            Key("page_size", \.pageSize, .integer(in: 1...1000), "events per page")
            Include(\.auth)
            Include(\.client)
        }
    }

    let name, url: String
    let pageSize: Int
    let credentials: RemoteCredentials
    let client: HTTPFetcher

    init(name: String, url: String, pageSize: Int, credentials: RemoteCredentials, client: HTTPFetcher) {
        (self.name, self.url, self.pageSize, self.credentials, self.client) = (name, url, pageSize, credentials, client)
    }

    /// Only changes and deletions, after the first run: what a run does not send is unchanged, not gone.
    var feed: SourceFeed { .delta }

    func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        // What the last successful run stored; nil on the first run and under `calpipe run --full`.
        var token = context.state(for: name)?["sync_token"]?.stringValue
        var next: String? = address(token.map { ["sync_token": $0] } ?? [:])
        // Asked every time, never answered from an old copy; a Ctrl-C stops the waits between retries.
        let cancellation = context.cancellation
        let policy = CachePolicy(defaultTTL: 0, isCancelled: { cancellation.cancelledReason != nil }, maxStale: 0)
        while let page = next {
            try context.checkCancellation()
            let answer = try client.send(.get(page, credentials: credentials), policy: policy)
            let status = answer.response.status
            if status == 410, token != nil {
                // The service forgot the token: list everything again (deletions since then are not listed).
                context.warn("\(name): the service no longer knows the sync token; reading every event again")
                token = nil
                next = address([:])
                continue
            }
            guard status == 200, let body = try? JSONParser.parse(answer.response.text).objectValue else {
                throw CalpipeError("\(answer.url): the service answered \(status), not a page of events")
            }
            var events: [Event] = []
            var deletions: [Deletion] = []
            for (i, item) in (body["items"]?.arrayValue ?? []).enumerated() {
                let at = SourceLocation(file: answer.url, path: "items[\(i)]")
                guard let id = item.objectValue?["id"]?.stringValue else { context.report.reject(at, "an item without an \"id\""); continue }
                if item.objectValue?["deleted"]?.boolValue == true {
                    deletions.append(Deletion(uid: id))
                } else if let event = Self.event(id, item) {
                    events.append(event)
                } else {
                    context.report.reject(at, "event \"\(id)\": expected \"start\" and \"end\" as RFC 3339 date-times")
                }
            }
            var batch = Batch(events: events)
            batch.deletions = deletions
            try emit(batch)
            next = body["next_page_token"]?.stringValue.map { address(["page_token": $0]) }
            if let done = body["next_sync_token"]?.stringValue {
                // A proposal: stored once every sink committed, else the next run asks with `token` again.
                var state = PluginState()
                state["sync_token"] = .string(done)
                context.setState(state, for: name)
            }
        }
        for note in client.takeNotes() { context.warn(note) }
    }

    /// The listing's address with `query` (a page size, then a sync token or a page token).
    private func address(_ query: [String: String]) -> String {
        var components = URLComponents(string: url)
        components?.queryItems = [URLQueryItem(name: "page_size", value: String(pageSize))]
            + query.map { URLQueryItem(name: $0.key, value: $0.value) }
        return components?.string ?? url
    }

    /// An item as an event: {"id", "title", "start", "end"}, times in RFC 3339 with an offset.
    static func event(_ id: String, _ item: JSONValue) -> Event? {
        func time(_ key: String) -> EventTime? {
            guard let text = item.objectValue?[key]?.stringValue, case .instant(let seconds, _)? = ISODate.parse(text) else { return nil }
            return .utc(seconds)
        }
        guard let start = time("start"), let end = time("end") else { return nil }
        return Event(uid: id, start: start, endSpec: .end(end), title: item.objectValue?["title"]?.stringValue)
    }
}
// docs:end events-api
