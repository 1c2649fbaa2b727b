import Fetch
import Foundation
import Pipeline

/// `type: caldav`: reads the events of a CalDAV account (Nextcloud, Radicale, Fastmail, iCloud, mailbox.org...)
/// from its server address: finds the calendars (`CalDAVDiscovery`), keeps those named in `calendars` (default:
/// every calendar that holds events), and reads each with a calendar-query over the pipeline's window and
/// calendar-multiget in batches (`CalDAVCalendarReader`). With `sync`, later runs ask only for what changed
/// (RFC 6578 sync-collection, the token in the plugin's state) and send it as a delta with deletions. Every event
/// carries its calendar's name and colour (`metadata["calendar"]`, `["calendar_color"]`), href and ETag.
package final class CalDAVServerSource: EventSource {
    package static let descriptor = SourceDescriptor(
        type: "caldav",
        kind: .source,
        summary: "A CalDAV account (Nextcloud, Radicale, Fastmail, iCloud...): its calendars' events in the window, incrementally with sync",
        options: Options.self,
        make: { options, context in
            CalDAVServerSource(url: options.url, calendars: options.calendars, sync: options.sync, batchSize: options.batchSize,
                               client: CalDAVClient(auth: options.auth, client: options.client, environment: context.environment))
        }
    )

    let url: String
    let selection: [String]?
    let sync: Bool
    let batchSize: Int
    let client: CalDAVClient

    init(url: String, calendars: [String]?, sync: Bool, batchSize: Int, client: CalDAVClient) {
        self.url = url
        selection = calendars
        self.sync = sync
        self.batchSize = batchSize
        self.client = client
    }

    package var feed: SourceFeed { sync ? .delta : .complete }

    package func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        defer { for note in client.http.takeNotes() { context.warn(note) } }
        let label = context.runState.currentSourceLabel ?? URLRedaction.redact(url)
        let calendars = try chosen(CalDAVDiscovery(client: client).calendars(from: url))
        let prior = sync ? context.state(for: label)?["calendars"]?.objectValue : nil
        var next: [(key: String, value: JSONValue)] = []
        try withoutActuallyEscaping(emit) { emit in
            for calendar in calendars {
                try context.checkCancellation()
                let reader = CalDAVCalendarReader(calendar: calendar, client: client, batchSize: batchSize, context: context, emit: emit)
                if sync {
                    let kept = try reader.sync(from: CalDAVCalendarState(prior?[calendar.href]))
                    next.append((calendar.href, kept.json))
                } else {
                    try reader.readWindow()
                }
            }
        }
        guard sync else { return }
        // A calendar no longer read (deleted on the server, or left out of `calendars`): its events go.
        let read = Set(calendars.map(\.href))
        for (href, value) in prior?.members ?? [] where !read.contains(href) {
            let uids = Set(CalDAVCalendarState(value)?.resources.values.map(\.uid) ?? [])
            guard !uids.isEmpty else { continue }
            var batch = Batch()
            batch.deletions = uids.sorted().map { Deletion(uid: $0) }
            try emit(batch)
            context.info("\(label): calendar \(href) is no longer read: its \(uids.count) events are removed")
        }
        context.setState(PluginState(JSONObject([("calendars", .object(JSONObject(next.sorted { $0.key < $1.key })))])), for: label)
    }

    /// The calendars `calendars` names (by displayname or href, in the order given), or every one that holds events.
    func chosen(_ found: [CalDAVCalendar]) throws -> [CalDAVCalendar] {
        guard let selection else { return found.filter(\.holdsEvents) }
        return try selection.map { wanted in
            if let match = found.first(where: { $0.name == wanted || $0.href == wanted || $0.url == wanted }) { return match }
            let names = found.map(\.name).sorted()
            throw CalpipeError("\(URLRedaction.redact(url)): no calendar \"\(wanted)\" on the server (it has \(names.map { "\"\($0)\"" }.joined(separator: ", ")))"
                               + Suggestion.hint(for: wanted, in: names), kind: .failure)
        }
    }
}
