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
    static let pageSize = (default: 100, maximum: 1000)
    static let tokenHelp = "get a new one (docs/sources.md, \"Microsoft 365 (Graph)\")"

    static let descriptor = SourceDescriptor(
        type: "graph",
        kind: .source,
        summary: "A Microsoft 365 / Outlook calendar over Microsoft Graph (calendarView): occurrences expanded by the server in the window, then only changes (delta link)",
        options: CloudOptions.docs(
            calendar: OptionDoc("calendar", "string", "the calendar's id (GET /me/calendars lists them); the account's default calendar when absent"),
            baseURL: defaultBase, pageSize: pageSize) + [
            OptionDoc("time_zone", "string", "the zone Graph writes times in (Prefer: outlook.timezone): an IANA or a Windows zone name", default: "UTC"),
        ],
        make: { options in
            let calendar = options.string("calendar")
            let zone = options.string("time_zone", default: "UTC")
            if options.environment.zones.zone(named: zone) == nil {
                options.report("time_zone", "unknown time zone \"\(zone)\" (expected an IANA name such as \"Europe/Berlin\" or a Windows name such as \"W. Europe Standard Time\")")
            }
            let shared = CloudOptions.read(options, baseURL: defaultBase, pageSize: pageSize, service: "Microsoft Graph", tokenHelp: tokenHelp)
            try options.finish()
            guard let shared else { throw CalpipeError.optionsRejected }
            return GraphSource(calendar: calendar, timeZone: zone, options: shared)
        }
    )

    let calendar: String?
    let timeZone: String
    let options: CloudOptions

    init(calendar: String?, timeZone: String, options: CloudOptions) {
        self.calendar = calendar
        self.timeZone = timeZone
        self.options = options
    }

    var feed: SourceFeed { options.incremental ? .delta : .complete }

    /// `…/me/calendars/{id}`, or `…/me/calendar`.
    var calendarURL: String { options.baseURL + (calendar.map { "/me/calendars/" + CloudSync.pathSegment($0) } ?? "/me/calendar") }

    func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        let range = CloudSync.range(context: context)
        let view = calendarURL + (options.incremental ? "/calendarView/delta" : "/calendarView")
        let sync = CloudSync(context: context, scope: "\(view) \(range.from)/\(range.to) \(timeZone)", incremental: options.incremental, fallbackLabel: "graph")
        let info = try options.api.page(calendarURL, context: context)
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
        var prefer = "outlook.timezone=\"\(timeZone)\""
        if options.incremental { prefer += ", odata.maxpagesize=\(options.pageSize)" }
        var url = first
        var page = 0
        while true {
            try context.checkCancellation()
            page += 1
            let answer = try options.api.page(url, headers: ["Prefer": prefer], context: context)
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
        guard Self.origin(of: link) == Self.origin(of: options.baseURL) else {
            throw CalpipeError("\(label): Microsoft Graph sent a link to another server (\(URLRedaction.redact(link))); not followed, the access token stays with \(Self.origin(of: options.baseURL))")
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
