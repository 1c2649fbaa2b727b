import Fetch
import Foundation
import Pipeline

/// `type: caldav` (sink): publishes the events that reach it into one calendar collection, one resource per UID
/// (a series with its overrides), and keeps the collection in step across runs: new UIDs are PUT with
/// `If-None-Match: *`, changed ones with `If-Match` and the ETag kept in the plugin's state, and UIDs that left
/// the feed (or, with a window, have no occurrence in it any more) are DELETEd with `If-Match`, unless
/// `keep_removed`. A server copy changed since calpipe wrote it is never overwritten: the 412 is reported as the
/// record's outcome `conflict`. A remote sink (`commitKind` `.remote`): events wait on disk (`EventSpool`) until
/// commit, after the local outputs are in place, then go out `concurrency` at a time.
// @unchecked Sendable: the spool and the UIDs it holds are filled by `write` and read by `commit`, called as the
// `Sink` contract says (one call at a time, one run at a time).
package final class CalDAVSink: Sink, @unchecked Sendable {
    package static let descriptor = SinkDescriptor(
        type: "caldav",
        kind: .sink,
        summary: "Publish the events into one CalDAV calendar: create, update and delete with ETags, never overwriting a change made on the server",
        options: Options.self,
        make: { options, context in
            CalDAVSink(url: options.url, keepRemoved: options.keepRemoved, concurrency: options.concurrency,
                       client: CalDAVClient(auth: options.auth, client: options.client, environment: context.environment),
                       windowed: context.environment.window != nil)
        }
    )

    let collection: String
    let keepRemoved: Bool
    let concurrency: Int
    let client: CalDAVClient
    let windowed: Bool
    package let label: String

    private var spool: EventSpool?
    /// The UID of each spooled event, and how many events each UID has.
    private var spooledUIDs: [String] = []
    private var counts: [String: Int] = [:]
    /// With a window: the UIDs that have an occurrence in it.
    private var inWindow: Set<String> = []

    init(url: String, keepRemoved: Bool, concurrency: Int, client: CalDAVClient, windowed: Bool) {
        collection = url.hasSuffix("/") ? url : url + "/"
        self.keepRemoved = keepRemoved
        self.concurrency = concurrency
        self.client = client
        self.windowed = windowed
        label = "caldav " + URLRedaction.redact(url)
    }

    package var needs: BatchContent { windowed ? [.events, .occurrences] : .events }
    package var commitKind: SinkCommit { .remote }

    package func open(context: RunContext) throws {
        spool = EventSpool()
        spooledUIDs = []
        counts = [:]
        inWindow = []
    }

    package func write(_ batch: Batch, context: RunContext) throws {
        guard let spool else { return }
        if windowed, batch.content.contains(.occurrences) {
            for occurrence in batch.occurrences { inWindow.insert(occurrence.event.uid) }
        }
        for event in batch.events {
            try spool.append(event)
            spooledUIDs.append(event.uid)
            counts[event.uid, default: 0] += 1
        }
    }

    package func commit(context: RunContext) throws -> Int {
        guard let spool else { return 0 }
        defer { abort(context: context) }
        var entries = CalDAVResourceEntry.all(in: context.state(for: label))
        let publisher = CalDAVPublisher(client: client, collection: collection, stamp: context.environment.now,
                                        zones: context.environment.zones, zone: context.zone)
        let pool = OrderedWorkerPool<Job, CalDAVPublisher.Result>(name: "caldav", workers: concurrency, bound: concurrency * 2) { _ in
            { job in
                if let events = job.events { return try publisher.publish(uid: job.uid, events: events, prior: job.prior) }
                return try publisher.remove(uid: job.uid, entry: job.prior!)
            }
        }
        defer { pool.stop() }
        var sent = 0
        func take() throws {
            guard let result = try pool.take() else { return }
            entries[result.uid] = result.entry
            context.report.record(result.outcome, sink: label)
            if result.outcome != .unchanged && result.outcome != .conflict { sent += 1 }
            if result.outcome == .conflict {
                context.warn("\(label): UID \"\(result.uid)\": \(result.reason ?? "conflict")")
            } else if result.outcome == .failed {
                context.report.recordFailure(sink: label, record: "UID \"\(result.uid)\"", reason: result.reason ?? "not written")
            }
        }
        func submit(_ job: Job) throws {
            if pool.inFlight >= pool.bound { try take() }
            pool.submit(job)
        }
        // Each UID goes out once its last event is read back (a series and its overrides may be far apart).
        var published = Set<String>()
        var waiting: [String: [Event]] = [:]
        try spool.forEach(where: { _ in true }) { event in
            try context.checkCancellation()
            waiting[event.uid, default: []].append(event)
            guard waiting[event.uid]!.count == counts[event.uid] else { return }
            let events = waiting.removeValue(forKey: event.uid)!
            guard !windowed || inWindow.contains(event.uid), published.insert(event.uid).inserted else { return }
            try submit(Job(uid: event.uid, events: Self.ordered(events), prior: entries[event.uid]))
        }
        if !keepRemoved {
            for (uid, entry) in entries.sorted(by: { $0.key < $1.key }) where !published.contains(uid) {
                try context.checkCancellation()
                try submit(Job(uid: uid, events: nil, prior: entry))
            }
        }
        while pool.inFlight > 0 { try take() }
        context.setState(CalDAVResourceEntry.state(entries), for: label)
        for note in client.http.takeNotes() { context.warn(note) }
        return sent
    }

    package func abort(context: RunContext) {
        spool?.close()
        spool = nil
        spooledUIDs = []
        counts = [:]
        inWindow = []
    }

    /// One resource to publish (`events`) or to remove (nil).
    struct Job: Sendable {
        var uid: String
        var events: [Event]?
        var prior: CalDAVResourceEntry?
    }

    /// The master first, then the overrides by RECURRENCE-ID: the same events give the same resource.
    static func ordered(_ events: [Event]) -> [Event] {
        events.sorted { a, b in
            switch (a.recurrenceID, b.recurrenceID) {
            case (nil, nil): return false
            case (nil, _): return true
            case (_, nil): return false
            case (let x?, let y?): return x.time.utcSeconds(in: .utc) < y.time.utcSeconds(in: .utc)
            }
        }
    }
}
