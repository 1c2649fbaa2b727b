@testable import Exporters
import XCTest
@testable import Pipeline

/// The JSON sink's `days` shape sorts entries with bounded memory (`DayEntrySpool`: sorted runs on disk,
/// merged at the end). Spilling must not change a byte: same document as sorting in memory, entries in
/// `DayEntry.agendaOrder`.
final class JSONDaysSpoolTests: XCTestCase {
    typealias T = TestSupport

    /// 1,500 events over three weeks in Berlin: timed, all-day and multi-day (across the DST change of
    /// 2026-10-25), many starting at the same minute with the same or different titles, non-ASCII titles.
    private func events() -> [Event] {
        let berlin = T.zone("Europe/Berlin")
        let titles = ["Stand-up", "Review", "Überprüfung", "会議", "Ωmega", "review", "Stand-up"]
        var out: [Event] = []
        for i in 0..<1_500 {
            let day = 14 + i % 21
            let (month, dom) = day > 31 ? (11, day - 31) : (10, day)
            let uid = "u\(i % 700)-\(i)"
            let title = titles[i % titles.count]
            if i % 11 == 0 {
                out.append(Event(uid: uid, start: .date(T.date(2026, month, dom)), endSpec: .end(.date(T.date(2026, month, dom).adding(days: 1 + i % 3))), title: title))
            } else {
                let start = T.local(2026, month, dom, 8 + i % 3, (i % 4) * 15)
                let minutes = i % 13 == 0 ? 60 * 40 : 30 + i % 5 * 15
                out.append(Event(uid: uid, start: .zoned(start, berlin), endSpec: .duration(CalDuration(seconds: Int64(minutes * 60))), title: title))
            }
        }
        return out
    }

    private func render(runBytes: Int?, pretty: Bool, ndjson: Bool, emptyDays: Bool, window: Window?) throws -> String {
        let dir = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(ndjson ? "days.ndjson" : "days.json").path
        let sink = JSONExporter(path: path, shape: .days, ndjson: ndjson, pretty: pretty, emptyDays: emptyDays)
        if let runBytes { sink.spoolRunBytes = runBytes }
        let context = T.context(window: window)
        try Runner().run(PipelineDefinition(environment: context.environment, sources: [StaticSource(events())], stages: [SplitStage()], sinks: [sink]),
                         context: context)
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    /// Issue 30: the merge of a big days document checks for a signal as it writes, so SIGTERM during the
    /// commit of millions of entries rolls back at once instead of waiting for the end of the merge.
    func testASignalDuringTheMergeStopsTheCommitAndLeavesNothing() throws {
        let dir = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("days.json").path
        let sink = JSONExporter(path: path, shape: .days)
        sink.spoolRunBytes = 4_096
        let context = T.context(window: Window(from: T.date(2026, 10, 10), to: T.date(2026, 11, 8)))
        try sink.open(context: context)
        try sink.write(try SplitStage().process(Batch(events: events()), context: context), context: context)
        context.cancellation.cancel(reason: "SIGTERM")
        XCTAssertThrowsError(try sink.commit(context: context)) { error in
            XCTAssertEqual("\(error)", "interrupted by SIGTERM: nothing was written")
        }
        sink.abort(context: context)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }

    func testSpilledRunsGiveTheSameBytesAsSortingInMemory() throws {
        let window = Window(from: T.date(2026, 10, 10), to: T.date(2026, 11, 8))
        for (pretty, ndjson, emptyDays, w) in [(true, false, true, window), (false, false, true, window), (false, true, false, nil), (true, false, false, window)] {
            let inMemory = try render(runBytes: nil, pretty: pretty, ndjson: ndjson, emptyDays: emptyDays, window: w)
            let spilled = try render(runBytes: 4_096, pretty: pretty, ndjson: ndjson, emptyDays: emptyDays, window: w)
            XCTAssertEqual(spilled, inMemory, "pretty \(pretty) ndjson \(ndjson) empty_days \(emptyDays)")
            XCTAssertGreaterThan(inMemory.utf8.count, 100_000)
        }
    }

    func testEntriesFollowAgendaOrderAndEmptyDaysFillTheWindow() throws {
        let window = Window(from: T.date(2026, 10, 10), to: T.date(2026, 11, 8))
        let text = try render(runBytes: 4_096, pretty: false, ndjson: false, emptyDays: true, window: window)
        let doc = try JSONParser.parse(text)
        let days = doc.value(atDottedPath: "days")?.arrayValue ?? []
        // Every day of the window, in order, days before the first event included.
        XCTAssertEqual(days.count, 29)
        XCTAssertEqual(days.first?.value(atDottedPath: "date")?.stringValue, "2026-10-10")
        XCTAssertEqual(days.first?.value(atDottedPath: "entries"), .array([]))
        XCTAssertEqual(days.last?.value(atDottedPath: "date")?.stringValue, "2026-11-07")

        // The reference: the split stage's own entries sorted with DayEntry.agendaOrder.
        let context = T.context(window: window)
        let split = try SplitStage().process(Batch(events: events()), context: context)
        let expected = split.days.sorted(by: DayEntry.agendaOrder)
        let written = days.flatMap { day in
            (day.value(atDottedPath: "entries")?.arrayValue ?? []).map { entry in
                "\(day.value(atDottedPath: "date")?.stringValue ?? "") \(entry.value(atDottedPath: "uid")?.stringValue ?? "") \(entry.value(atDottedPath: "part")?.numberValue ?? 0)"
            }
        }
        XCTAssertEqual(written, expected.map { "\($0.day.iso8601) \($0.event.uid) \(Double($0.part))" })
        XCTAssertGreaterThan(written.count, 1_500)
    }

    func testTheSpoolMergesRunsStably() throws {
        let spool = DayEntrySpool(runBytes: 200)
        // Equal keys in several runs keep the order they were added in.
        for i in 0..<50 {
            let key = AgendaKey(day: 20_000 + (i * 7) % 5, allDay: i % 3 == 0, startUTC: Int64(i % 4), title: "t", uid: "same", endUTC: 0)
            try spool.add(key, text: "#\(i)")
        }
        XCTAssertGreaterThan(spool.spilledRuns, 3)
        var seen: [String] = []
        try spool.drain { seen.append(String(decoding: $0.text, as: UTF8.self)) }
        let expected = (0..<50).sorted { a, b in
            let ka = (20_000 + (a * 7) % 5, a % 3 == 0 ? 0 : 1, a % 4), kb = (20_000 + (b * 7) % 5, b % 3 == 0 ? 0 : 1, b % 4)
            return ka != kb ? ka < kb : a < b
        }.map { "#\($0)" }
        XCTAssertEqual(seen, expected)
    }
}
