import Exporters
import Importers
import XCTest
@testable import Pipeline

final class JSONExporterTests: XCTestCase {
    typealias T = TestSupport

    private func event(_ uid: String, _ title: String, _ start: EventTime, _ end: EventTime?) -> Event {
        var e = Event(uid: uid, start: start, endSpec: end.map { .end($0) }, title: title)
        e.location = "Room 1"
        e.attendees = [Attendee(name: "Ann", email: "ann@example.org", role: "CHAIR", status: "ACCEPTED")]
        return e
    }

    func testDaysShapeIsGroupedOrderedAndDeterministic() throws {
        let dir = try T.temporaryDirectory()
        let berlin = T.zone("Europe/Berlin")
        let window = Window(from: T.date(2026, 10, 24), to: T.date(2026, 10, 27))
        let events = [
            event("b", "Late", .zoned(T.local(2026, 10, 25, 23), berlin), .zoned(T.local(2026, 10, 26, 1), berlin)),
            event("a", "Holiday", .date(T.date(2026, 10, 25)), nil),
        ]
        func runOnce() throws -> String {
            let path = dir.appendingPathComponent("days.json").path
            let sink = JSONExporter(path: path, shape: .days, emptyDays: true)
            let context = T.context(window: window)
            try Runner().run(PipelineDefinition(environment: context.environment, sources: [StaticSource(events)], stages: [SplitStage()], sinks: [sink]), context: context)
            return try String(contentsOfFile: path, encoding: .utf8)
        }
        let first = try runOnce()
        XCTAssertEqual(first, try runOnce())
        let doc = try JSONParser.parse(first)
        XCTAssertEqual(doc.value(atDottedPath: "days")?.arrayValue?.map { $0.value(atDottedPath: "date")?.stringValue }, ["2026-10-24", "2026-10-25", "2026-10-26"])
        XCTAssertEqual(doc.value(atDottedPath: "days.0.entries"), .array([]))
        XCTAssertEqual(doc.value(atDottedPath: "days.1.entries")?.arrayValue?.map { $0.value(atDottedPath: "title")?.stringValue }, ["Holiday", "Late"])
        XCTAssertEqual(JSONWriter(pretty: false).string(doc.value(atDottedPath: "days.1.entries.1")!),
            #"{"id":"5831bd8aabe84cdd","uid":"b","title":"Late","description":null,"location":"Room 1","url":null,"color":null,"all_day":false,"start":"23:00","end":"24:00","duration_minutes":60,"starts_at":"2026-10-25T23:00:00+01:00","ends_at":"2026-10-26T00:00:00+01:00","part":1,"parts":2,"attendees":[{"name":"Ann","email":"ann@example.org","role":"CHAIR","status":"ACCEPTED","initials":"A"}],"attendee_count":1,"status":null,"source":"sources[0]","calendar":"sources[0]"}"#)
        XCTAssertEqual(doc.value(atDottedPath: "days.1.entries.0.duration_minutes"), .number(1500))
    }

    func testEventsRoundTripThroughTheJSONImporter() throws {
        let dir = try T.temporaryDirectory()
        let berlin = T.zone("Europe/Berlin")
        var e = event("r", "Weekly", .zoned(T.local(2026, 11, 2, 9), berlin), .zoned(T.local(2026, 11, 2, 10), berlin))
        e.recurrence.rules = [try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=MO;UNTIL=20261231T235959Z")]
        e.recurrence.exceptionDates = [.zoned(T.local(2026, 11, 9, 9), berlin)]
        e.categories = ["a", "b"]
        e.status = "TENTATIVE"
        e.coordinate = Coordinate(latitude: 52.5, longitude: 13.25)
        e.otherProperties = [RawProperty(name: "X-A", parameters: [Parameter(name: "P", values: ["1", "2"])], value: "v")]
        var u = Event(uid: "u", start: .utc(1_795_420_800), endSpec: .duration(CalDuration(seconds: 5400)))
        u.recurrenceID = RecurrenceID(time: .utc(1_795_420_800), thisAndFuture: true)
        let f = Event(uid: "f", start: .floating(T.local(2026, 11, 2, 7)))
        let path = dir.appendingPathComponent("events.json").path
        let context = T.context()
        try Runner().run(PipelineDefinition(environment: context.environment, sources: [StaticSource([e, u, f])], stages: [],
                                            sinks: [JSONExporter(path: path, shape: .events)]), context: context)
        var back: [Event] = []
        try JSONImporter(input: InputSpec(location: .path(path, written: "events.json"))).read(context: context) { back.append(contentsOf: $0.events) }
        XCTAssertEqual(back.count, 3)
        for (original, reread) in zip([e, u, f], back) {
            var r = reread
            r.origin = nil
            var o = original
            o.metadata = [:]
            r.metadata = [:]
            XCTAssertEqual(r, o)
        }
    }

    func testFailedRunLeavesThePreviousOutputAndNoTemporaryFiles() throws {
        let dir = try T.temporaryDirectory()
        let path = dir.appendingPathComponent("out.json").path
        try "previous".write(toFile: path, atomically: true, encoding: .utf8)
        let context = T.context()
        let source = StaticSource([Event(uid: "a", start: .date(T.date(2026, 11, 1)))], failAfterFirstBatch: true)
        XCTAssertThrowsError(try Runner().run(PipelineDefinition(environment: context.environment, sources: [source], stages: [],
                                                                 sinks: [JSONExporter(path: path, shape: .events)]), context: context))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "previous")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["out.json"])
    }

    /// The runner hands each batch to its last sink to keep (`Sink.write(owned:)`), and the json sink then moves the
    /// events out instead of copying them: the document must be the one a sink given the shared batch writes. Two
    /// json sinks in one run over real feeds (the corpus and the real-world files): the first gets each batch
    /// shared, the second owned, on the sinks' thread and on the caller's.
    func testAnOwnedBatchIsWrittenAsASharedOne() throws {
        let dir = try T.temporaryDirectory()
        var sources: [ICSSource] = []
        // The corpus's calendars one after the other in one file too, so that one source makes several batches.
        var corpus = Data()
        for folder in ["corpus", "realworld"] {
            let url = T.repositoryRoot.appendingPathComponent("Tests/Fixtures/ics/" + folder)
            for f in try FileManager.default.contentsOfDirectory(atPath: url.path).filter({ $0.hasSuffix(".ics") }).sorted() {
                let path = url.appendingPathComponent(f).path
                sources.append(ICSSource(input: InputSpec(location: .path(path, written: f))))
                if folder == "corpus" { corpus += try Data(contentsOf: URL(fileURLWithPath: path)) + Data("\r\n".utf8) }
            }
        }
        // Three copies, each with UIDs of its own (exact copies would be kept once): several batches of one source.
        let copies = (1...3).map { String(decoding: corpus, as: UTF8.self).replacingOccurrences(of: "\nUID:", with: "\nUID:copy\($0)-") }
        let combined = dir.appendingPathComponent("corpus.ics")
        try Data(copies.joined().utf8).write(to: combined)
        sources.append(ICSSource(input: InputSpec(location: .path(combined.path, written: "corpus.ics"))))
        XCTAssertGreaterThan(sources.count, 50)
        for concurrent in [true, false] {
            for ndjson in [false, true] {
                let shared = dir.appendingPathComponent("shared-\(concurrent)-\(ndjson).json").path
                let owned = dir.appendingPathComponent("owned-\(concurrent)-\(ndjson).json").path
                let context = T.context()
                let sinks = [JSONExporter(path: shared, shape: .events, ndjson: ndjson), JSONExporter(path: owned, shape: .events, ndjson: ndjson)]
                try Runner(concurrentSinks: concurrent).run(PipelineDefinition(environment: context.environment, sources: sources, stages: [], sinks: sinks),
                                                            context: context)
                let first = try Data(contentsOf: URL(fileURLWithPath: shared)), second = try Data(contentsOf: URL(fileURLWithPath: owned))
                XCTAssertEqual(first, second, "concurrent \(concurrent), ndjson \(ndjson)")
                let text = String(decoding: second, as: UTF8.self)
                // The combined file alone makes more than one batch.
                XCTAssertGreaterThan(text.components(separatedBy: "\"copy").count, ICSSource.batchSize + 1)
                XCTAssertGreaterThan(text.components(separatedBy: "\"uid\"").count, 2 * ICSSource.batchSize + 1)
                XCTAssertTrue(text.contains("\"rrule\""))
            }
        }
    }

    func testNDJSONOccurrencesInTheWindowOnly() throws {
        let dir = try T.temporaryDirectory()
        let path = dir.appendingPathComponent("occ.ndjson").path
        let window = Window(from: T.date(2026, 11, 1), to: T.date(2026, 11, 2))
        let context = T.context(window: window)
        let events = [Event(uid: "in", start: .date(T.date(2026, 11, 1))), Event(uid: "out", start: .date(T.date(2026, 11, 2)))]
        try Runner().run(PipelineDefinition(environment: context.environment, sources: [StaticSource(events)], stages: [],
                                            sinks: [JSONExporter(path: path, shape: .occurrences, ndjson: true)]), context: context)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8),
                       #"{"uid":"in","start":"2026-11-01","all_day":true,"end":"2026-11-02","starts_at":"2026-11-01","ends_at":"2026-11-02"}"# + "\n")
    }
}

/// A source that hands out fixed events, optionally failing after its first batch.
final class StaticSource: EventSource {
    let events: [Event]
    let failAfterFirstBatch: Bool

    init(_ events: [Event], failAfterFirstBatch: Bool = false) {
        self.events = events
        self.failAfterFirstBatch = failAfterFirstBatch
    }

    func read(context: RunContext, emit: (Batch) throws -> Void) throws {
        try emit(Batch(events: events))
        if failAfterFirstBatch { throw CalpipeError("failed on purpose", file: "static") }
    }
}
