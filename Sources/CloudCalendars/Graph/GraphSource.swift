import Fetch
import Pipeline

/// `type: graph`: the events of one Microsoft 365 / Outlook calendar, read with Microsoft Graph's calendar view
/// (https://learn.microsoft.com/graph/api/calendar-list-calendarview), the series already expanded by the server.
///
/// The calendar (`/me/calendars/{id}`, or `/me/calendar` for the default one) gives the events' calendar name and
/// colour. Incremental (the default): the first run reads `calendarView/delta` with the pipeline's window
/// (`startDateTime`/`endDateTime`), follows `@odata.nextLink` to the page with `@odata.deltaLink`, and keeps that link
/// in the plugin's state (https://learn.microsoft.com/graph/api/event-delta); the next run asks the link and gets
/// what changed since, removals (`@removed`) as deletions: the source is a delta feed. A link Graph no longer knows
/// (410 Gone) or a window that moved starts a whole read again (`CloudSync`). Not incremental: `calendarView` with
/// `$top`, every page each run. Times come in the zone of `Prefer: outlook.timezone` (`time_zone`), Windows names
/// included. How occurrences map to calpipe's events: `GraphEvent`.
final class GraphSource: EventSource {
    static let defaultBase = "https://graph.microsoft.com/v1.0"
    static let tokenHelp = "get a new one (docs/sources.md, \"Microsoft 365 (Graph)\")"

    static let descriptor = SourceDescriptor(
        type: "graph",
        kind: .source,
        summary: "A Microsoft 365 / Outlook calendar over Microsoft Graph (calendarView): occurrences expanded by the server in the window, then only changes (delta link)",
        options: Options.self,
        make: { options, context in
            GraphSource(options: options, api: CloudOptions.api(auth: options.auth, client: options.client, environment: context.environment,
                                                                 service: "Microsoft Graph", tokenHelp: tokenHelp))
        }
    )

    struct Options: OptionConfig {
        var calendar: String?
        var timeZone = "UTC"
        var baseURL = GraphSource.defaultBase
        var incremental = true
        var pageSize = 100
        var auth = HTTPAuthOptions()
        var client = HTTPClientOptions()

        init() {}

        static let options = OptionSpec<Options> {
            Key("calendar", \.calendar, .string, "the calendar's id (GET /me/calendars lists them)", default: "the account's default calendar")
            Key("time_zone", \.timeZone, .string, "the zone Graph writes times in (Prefer: outlook.timezone): a Windows or an IANA zone name")
            Key("base_url", \.baseURL, .url, CloudOptions.baseURLDoc)
            Key("incremental", \.incremental, .boolean, CloudOptions.incrementalDoc)
            Key("page_size", \.pageSize, .integer(in: 1...1000), "events asked for per page (Prefer: odata.maxpagesize, or $top without incremental)")
            Include(\.auth)
            Include(\.client)
        }

        mutating func validate(_ context: OptionContext<Options>) {
            if context.environment.zones.zone(named: timeZone) == nil {
                context.report(\.timeZone, "unknown time zone \"\(timeZone)\" (expected an IANA name such as \"Europe/Berlin\" or a Windows name such as \"W. Europe Standard Time\")")
            }
            CloudOptions.checkLogIn(auth, at: \.auth, context: context, service: "Microsoft Graph", tokenHelp: GraphSource.tokenHelp)
        }
    }

    let options: Options
    let api: CloudAPI

    init(options: Options, api: CloudAPI) {
        self.options = options
        self.api = api
    }

    var feed: SourceFeed { options.incremental ? .delta : .complete }

    /// `…/me/calendars/{id}`, or `…/me/calendar`.
    var calendarURL: String { CloudOptions.base(options.baseURL) + (options.calendar.map { "/me/calendars/" + CloudSync.pathSegment($0) } ?? "/me/calendar") }

    func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        let range = CloudSync.range(context: context)
        let view = calendarURL + (options.incremental ? "/calendarView/delta" : "/calendarView")
        let sync = CloudSync(context: context, scope: "\(view) \(range.from)/\(range.to) \(options.timeZone)", incremental: options.incremental, fallbackLabel: "graph")
        let info = try api.page(calendarURL, context: context)
        let color = info.optionalText("hexColor").flatMap { CSSColor.hex($0) }
        let calendar = (name: info.optionalText("name"), color: color)
        try sync.run(context: context, service: "Microsoft Graph") { deltaLink in
            var first = deltaLink ?? CloudSync.url(view, [("startDateTime", range.from), ("endDateTime", range.to)])
            if !options.incremental { first += "&$top=\(options.pageSize)" }
            return try readPages(from: first, delta: deltaLink != nil, calendar: calendar, label: sync.label, context: context, emit: emit)
        }
    }

    /// Every page from `first`, following `@odata.nextLink`; returns the last page's `@odata.deltaLink`.
    private func readPages(from first: String, delta: Bool, calendar: (name: String?, color: String?), label: String, context: RunContext,
                           emit: (Batch) throws -> Void) throws -> String? {
        var prefer = "outlook.timezone=\"\(options.timeZone)\""
        if options.incremental { prefer += ", odata.maxpagesize=\(options.pageSize)" }
        var url = first
        var page = 0
        while true {
            try context.checkCancellation()
            page += 1
            let answer = try api.page(url, headers: ["Prefer": prefer], context: context)
            try CloudPage.emit(answer["value"]?.arrayValue ?? [], page: page, label: label, skipped: "removed Microsoft Graph events skipped",
                               context: context, emit: emit) { item in
                try GraphEvent.item(item, calendar: calendar, zones: context.environment.zones, delta: delta)
            }
            guard let next = answer.optionalText("@odata.nextLink") else { return try answer.optionalText("@odata.deltaLink").map { try checked($0, label: label) } }
            if next == url { throw CalpipeError("\(label): Microsoft Graph sent the same @odata.nextLink twice (page \(page)); stopped instead of reading it again") }
            url = try checked(next, label: label)
        }
    }

    /// A link from an answer, followed only on the API's own server: the access token goes with every request.
    private func checked(_ link: String, label: String) throws -> String {
        guard Self.origin(of: link) == Self.origin(of: CloudOptions.base(options.baseURL)) else {
            throw CalpipeError("\(label): Microsoft Graph sent a link to another server (\(URLRedaction.redact(link))); not followed, the access token stays with \(Self.origin(of: CloudOptions.base(options.baseURL)))")
        }
        return link
    }

    /// "https://host:port" of a URL, lower-cased.
    static func origin(of url: String) -> String {
        let lower = url.lowercased()
        guard let scheme = lower.range(of: "://") else { return lower }
        let rest = lower[scheme.upperBound...]
        return String(lower[..<scheme.upperBound]) + String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }
}
