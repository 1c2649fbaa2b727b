import Fetch
import Pipeline

/// `type: google`: the events of one Google Calendar, read with the Calendar API v3 `events.list`
/// (https://developers.google.com/calendar/api/v3/reference/events/list).
///
/// A whole read asks for the pipeline's window (`timeMin`/`timeMax`) with `singleEvents=true` and follows
/// `nextPageToken` to the last page, whose `nextSyncToken` is kept in the plugin's state. The next run sends only
/// `syncToken` (Google refuses the window with it) and gets what changed since, cancelled events included: the
/// source is then a delta feed (`SourceFeed.delta`), and cancellations become deletions. A token Google no longer
/// knows (410 Gone) or a window that moved starts a whole read again (`CloudSync`). How instances and series map
/// to calpipe's events: `GoogleEvent`.
final class GoogleSource: EventSource {
    static let defaultBase = "https://www.googleapis.com/calendar/v3"
    static let tokenHelp = "get a new one (docs/sources.md, \"Google Calendar\")"

    static let descriptor = SourceDescriptor(
        type: "google",
        kind: .source,
        summary: "A Google Calendar over the Calendar API (events.list): instances expanded by Google in the window, then only changes (sync token)",
        options: Options.self,
        make: { options, context in
            GoogleSource(options: options, api: CloudOptions.api(auth: options.auth, client: options.client, environment: context.environment,
                                                                  service: "Google Calendar", tokenHelp: tokenHelp))
        }
    )

    struct Options: OptionConfig {
        var calendar = "primary"
        var baseURL = GoogleSource.defaultBase
        var incremental = true
        var pageSize = 250
        var auth = HTTPAuthOptions()
        var client = HTTPClientOptions()

        init() {}

        static let options = OptionSpec<Options> {
            Key("calendar", \.calendar, .string, "the calendar's id (Settings and sharing > Integrate calendar), or \"primary\" for the account's own")
            Key("base_url", \.baseURL, .url, CloudOptions.baseURLDoc)
            Key("incremental", \.incremental, .boolean, CloudOptions.incrementalDoc)
            Key("page_size", \.pageSize, .integer(in: 1...2500), "events asked for per page (maxResults)")
            Include(\.auth)
            Include(\.client)
        }

        mutating func validate(_ context: OptionContext<Options>) {
            CloudOptions.checkLogIn(auth, at: \.auth, context: context, service: "Google Calendar", tokenHelp: GoogleSource.tokenHelp)
        }
    }

    let options: Options
    let api: CloudAPI

    init(options: Options, api: CloudAPI) {
        self.options = options
        self.api = api
    }

    var feed: SourceFeed { options.incremental ? .delta : .complete }

    /// `…/calendars/{calendarId}/events`.
    var eventsURL: String { CloudOptions.base(options.baseURL) + "/calendars/" + CloudSync.pathSegment(options.calendar) + "/events" }

    func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        let range = CloudSync.range(context: context)
        let sync = CloudSync(context: context, scope: "\(eventsURL) \(range.from)/\(range.to)", incremental: options.incremental, fallbackLabel: "google")
        try sync.run(context: context, service: "Google Calendar") { token in
            try readPages(syncToken: token, range: range, label: sync.label, context: context, emit: emit)
        }
    }

    /// Every page of one read; returns the last page's `nextSyncToken`.
    private func readPages(syncToken: String?, range: (from: String, to: String), label: String, context: RunContext,
                           emit: (Batch) throws -> Void) throws -> String? {
        var pageToken: String?
        var page = 0
        while true {
            try context.checkCancellation()
            page += 1
            var query = [("maxResults", String(options.pageSize)), ("singleEvents", "true")]
            if let syncToken {
                query.append(("syncToken", syncToken))
            } else {
                query += [("timeMin", range.from), ("timeMax", range.to)]
            }
            if let pageToken { query.append(("pageToken", pageToken)) }
            let answer = try api.page(CloudSync.url(eventsURL, query), context: context)
            let zone = answer.optionalText("timeZone").flatMap { context.environment.zones.zone(named: $0) }
            let name = answer.optionalText("summary")
            try CloudPage.emit(answer["items"]?.arrayValue ?? [], page: page, label: label, skipped: "cancelled Google Calendar events skipped",
                               context: context, emit: emit) { item in
                try GoogleEvent.item(item, calendar: name, calendarZone: zone, zones: context.environment.zones, delta: syncToken != nil)
            }
            guard let next = answer.optionalText("nextPageToken") else { return answer.optionalText("nextSyncToken") }
            if next == pageToken { throw CalpipeError("\(label): Google Calendar sent the same nextPageToken twice (page \(page)); stopped instead of reading it again") }
            pageToken = next
        }
    }
}
