import CalXML
import Fetch
import Foundation
import Importers
import Pipeline

/// Reads one calendar collection: the resources a calendar-query finds in the window (never expanded by the
/// server), fetched by calendar-multiget in batches and read with the iCalendar reader; or, when syncing, what
/// sync-collection says changed since the kept token, as changes and deletions.
struct CalDAVCalendarReader {
    let calendar: CalDAVCalendar
    let client: CalDAVClient
    let batchSize: Int
    let context: RunContext
    let emit: (Batch) throws -> Void

    /// The window as UTC seconds, a day wider on each side: a server compares all-day and floating times in its
    /// own zone, and the expand stage cuts exactly.
    var span: (start: Int64, end: Int64)? {
        guard let window = context.window else { return nil }
        let (start, end) = window.utcRange(in: context.zone)
        return (start - 86_400, end + 86_400)
    }

    /// The events in the window, every run (a complete feed).
    func readWindow() throws {
        var ignored = CalDAVCalendarState()
        try read(try query(span), into: &ignored)
    }

    /// A syncing run: the changes since `prior`'s token, or a full read of the window when there is none or the
    /// server no longer knows it (403/409 valid-sync-token). Returns what to keep for the next run.
    func sync(from prior: CalDAVCalendarState?) throws -> CalDAVCalendarState {
        if let prior, let token = prior.syncToken {
            if let changes = try changes(since: token) {
                return try apply(changes, to: prior)
            }
            context.warn("\(calendar.url): the server no longer knows the sync token; reading the calendar again")
        }
        return try fullRead(prior: prior)
    }

    // MARK: - Full reads

    private func fullRead(prior: CalDAVCalendarState?) throws -> CalDAVCalendarState {
        // The token the listing gave was taken before the query: nothing changed after it goes unseen.
        var state = CalDAVCalendarState(syncToken: calendar.syncToken, span: span)
        if calendar.syncToken == nil {
            context.warn("\(calendar.url): the server offers no sync token (RFC 6578); every run reads the whole calendar")
        }
        let hrefs = try query(span)
        // Resources known from an earlier run that are gone now (the token was not accepted).
        if let prior, !prior.resources.isEmpty {
            let present = try members()
            var batch = Batch()
            for (href, entry) in prior.resources.sorted(by: { $0.key < $1.key }) where !present.contains(href) {
                batch.deletions.append(Deletion(uid: entry.uid))
            }
            for (href, entry) in prior.resources where present.contains(href) { state.resources[href] = entry }
            if !batch.deletions.isEmpty { try emit(batch) }
        }
        try read(hrefs, into: &state)
        return state
    }

    /// The hrefs of the event resources overlapping `span` (all of them when nil), in the server's order.
    private func query(_ span: (start: Int64, end: Int64)?) throws -> [String] {
        let answer = try client.xml("REPORT", calendar.url, depth: "1", body: CalDAVReports.eventQuery(from: span?.start, to: span?.end))
        guard answer.response.status == 207 else { throw CalDAVClient.unexpected("REPORT calendar-query", answer, expected: "207") }
        var hrefs: [String] = []
        for response in try DAVResponse.parse(answer.response.body, label: answer.url).responses {
            if response.isSuccess { hrefs.append(response.href) } else { skipped(response.href, status: response.status ?? "") }
        }
        return hrefs
    }

    /// Every member's href (PROPFIND Depth 1).
    private func members() throws -> Set<String> {
        let answer = try client.xml("PROPFIND", calendar.url, depth: "1", body: CalDAVReports.members)
        guard answer.response.status == 207 else { throw CalDAVClient.unexpected("PROPFIND", answer, expected: "207") }
        return Set(try DAVResponse.parse(answer.response.body, label: answer.url).responses.filter(\.isSuccess).map(\.href))
    }

    // MARK: - Incremental runs

    struct Changes {
        var token: String
        var changed: [String] = []
        var removed: [String] = []
    }

    /// What changed since `token` (sync-collection; a truncated answer, 507 on the collection, is asked again
    /// from its token), or nil when the server refuses the token.
    private func changes(since token: String) throws -> Changes? {
        var changes = Changes(token: token)
        var seen = Set<String>()
        let own = CalDAVClient.path(of: calendar.url)
        while true {
            let answer = try client.xml("REPORT", calendar.url, depth: "1", body: CalDAVReports.syncCollection(token: changes.token))
            if answer.response.status == 403 || answer.response.status == 409 {
                if answer.response.text.contains("valid-sync-token") { return nil }
            }
            guard answer.response.status == 207 else { throw CalDAVClient.unexpected("REPORT sync-collection", answer, expected: "207") }
            let (responses, next) = try DAVResponse.parse(answer.response.body, label: answer.url)
            var truncated = false
            for response in responses {
                if response.href == own || response.href == calendar.href {
                    if response.status == "507" { truncated = true }
                    continue
                }
                guard seen.insert(response.href).inserted else { continue }
                if response.status == "404" { changes.removed.append(response.href) } else if response.isSuccess { changes.changed.append(response.href) } else {
                    skipped(response.href, status: response.status ?? "")
                }
            }
            guard let next, !next.isEmpty else { throw CalpipeError("\(answer.url): the sync-collection answer has no sync-token") }
            let advanced = next != changes.token
            changes.token = next
            if !truncated || !advanced { return changes }
        }
    }

    /// Sends the changes as a delta: the removed resources' UIDs as deletions, the changed ones (and those the
    /// window gained since the last run) read again.
    private func apply(_ changes: Changes, to prior: CalDAVCalendarState) throws -> CalDAVCalendarState {
        var state = prior
        state.syncToken = changes.token
        var deletions: [Deletion] = []
        for href in changes.removed {
            if let entry = state.resources.removeValue(forKey: href) { deletions.append(Deletion(uid: entry.uid)) }
        }
        var wanted = changes.changed
        // The window moved past what was read: the resources of the new part are read too.
        for gained in gainedSpans(prior.span) {
            wanted += try query(gained)
        }
        if let span, let old = prior.span { state.span = (min(span.start, old.start), max(span.end, old.end)) } else { state.span = nil }
        var unique = Set<String>()
        wanted = wanted.filter { unique.insert($0).inserted }
        // A changed resource that held overrides replaces its UID's rows whole (an override removed goes too).
        for href in wanted {
            if let entry = state.resources[href], entry.overrides { deletions.append(Deletion(uid: entry.uid)) }
        }
        if !deletions.isEmpty {
            var batch = Batch()
            batch.deletions = deletions
            try emit(batch)
        }
        try read(wanted, into: &state)
        return state
    }

    /// The parts of the current window outside `read` (nil: everything was read).
    private func gainedSpans(_ read: (start: Int64, end: Int64)?) -> [(start: Int64, end: Int64)?] {
        guard let read else { return [] }
        guard let span else { return [nil] }
        var gained: [(start: Int64, end: Int64)?] = []
        if span.start < read.start { gained.append((span.start, min(span.end, read.start))) }
        if span.end > read.end { gained.append((max(span.start, read.end), span.end)) }
        return gained
    }

    // MARK: - Calendar data

    /// Fetches the resources by calendar-multiget, `batchSize` at a time, and emits their events with the
    /// calendar's name and colour; records each resource's UID in `state`.
    private func read(_ hrefs: [String], into state: inout CalDAVCalendarState) throws {
        var start = hrefs.startIndex
        while start < hrefs.endIndex {
            try context.checkCancellation()
            let end = min(start + batchSize, hrefs.endIndex)
            let answer = try client.xml("REPORT", calendar.url, depth: "1", body: CalDAVReports.multiget(hrefs[start..<end]), into: .file)
            guard answer.response.status == 207, let path = answer.bodyPath else {
                throw CalDAVClient.unexpected("REPORT calendar-multiget", answer, expected: "207")
            }
            let reader = try XMLStreamReader(input: ChunkReader(path: path, label: calendar.url, progress: context.report), label: calendar.url)
            var events: [Event] = []
            try CalDAVSource.readMultistatus(reader, label: calendar.url, context: context, failed: { href, status in
                skipped(href, status: status)
            }, events: { found in
                for var event in found {
                    event.metadata["calendar"] = calendar.name
                    if let color = calendar.color { event.metadata[Event.calendarColorKey] = color } else { event.metadata[Event.calendarColorKey] = nil }
                    events.append(event)
                }
                if let href = found.first?.metadata["href"] {
                    state.resources[href] = (found[0].uid, found.contains { $0.recurrenceID != nil })
                }
            })
            try? FileManager.default.removeItem(atPath: path)
            if !events.isEmpty { try emit(Batch(events: events)) }
            start = end
        }
    }

    /// A resource the server answered with an error: said, and the others read.
    private func skipped(_ href: String, status: String) {
        context.warn("\(CalDAVClient.resolve(href, against: calendar.url)): the server answered \(status) for this resource; it is left out")
    }
}
