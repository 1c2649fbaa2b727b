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
        type: "events-api", kind: .source, summary: "a calendar service's events, then only their changes",
        options: [
            OptionDoc("url", "url", required: true, "the service's events address"),
            OptionDoc("page_size", "integer", "events per page", default: "100"),
        ] + HTTPOptions.auth() + HTTPOptions.client(),
        make: { options in
            let url = options.string("url", required: true) ?? ""
            let pageSize = options.integer("page_size", default: 100, range: 1...1000)
            // The state is kept under the source's name (its label), so it stays when the address changes.
            let name = options.string("name")
            if name == nil { options.report("name", "missing (this source keeps its sync token under its name)") }
            let access = HTTPOptions.access(options)
            let settings = HTTPSettings(HTTPOptions.clientOptions(options), base: HTTPSettings(userAgent: "events-api-example/1.0"))
            try options.finish()
            return EventsAPISource(name: name ?? "", url: url, pageSize: pageSize, credentials: access?.credentials ?? RemoteCredentials(),
                                   client: options.environment.httpClient(settings: settings))
        })

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
