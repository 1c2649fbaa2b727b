import CalpipeKit
import Foundation
import XCTest
@testable import Pipeline

/// Issue 30 item 3: one series makes at most `max_day_entries` day entries; the rest are dropped, counted and
/// reported with a warning naming the series. `DaySplitter.count` (what the cap counts with) agrees with `split`.
final class SplitCapTests: XCTestCase {
    typealias T = TestSupport

    private let berlin = T.zone("Europe/Berlin")
    private let window = Window(from: T.date(2026, 11, 1), to: T.date(2026, 11, 11))

    /// Hourly, each instance three days long, from the window's first midnight: 240 instances, 809 day entries
    /// in the ten days of the window (an instance that starts at 00:00 touches 3 days, any other 4, cut at
    /// the window's end).
    private func hourlyThreeDays(_ uid: String, line: Int) throws -> Event {
        var event = Event(uid: uid, start: .zoned(T.local(2026, 11, 1), berlin), endSpec: .end(.zoned(T.local(2026, 11, 4), berlin)), title: "Long")
        event.recurrence = Recurrence(rules: [try RecurrenceRule(parsing: "FREQ=HOURLY")])
        event.origin = SourceLocation(file: "feed.ics", line: line)
        event.metadata = ["source": "feed"]
        return event
    }

    /// Runs expand then split over `events` as the runner does; returns the day entries and the warnings.
    private func run(_ events: [Event], split: SplitStage) throws -> (days: [DayEntry], warnings: [String]) {
        let context = T.context(zone: "Europe/Berlin", window: window)
        let expand = ExpandStage()
        var days: [DayEntry] = []
        days += try split.process(try expand.process(Batch(events: events), context: context), context: context).days
        try expand.finish(context: context) { batch in days += try split.process(batch, context: context).days }
        try split.finish(context: context) { days += $0.days }
        return (days, context.report.warnings)
    }

    func testASeriesPastTheCapIsCutWithAWarningThatNamesIt() throws {
        var single = Event(uid: "single@x", start: .zoned(T.local(2026, 11, 2, 9), berlin), endSpec: .end(.zoned(T.local(2026, 11, 2, 10), berlin)), title: "One")
        single.metadata = ["source": "feed"]
        let events = [try hourlyThreeDays("long@x", line: 3), try hourlyThreeDays("other@x", line: 40), single]

        let all = try run(events, split: SplitStage())
        XCTAssertEqual(all.days.filter { $0.occurrence.event.uid == "long@x" }.count, 809)
        XCTAssertEqual(all.warnings, [])

        let cut = try run(events, split: SplitStage(maxDayEntries: 500))
        // Each series keeps its first 500 entries: instances 0 to 125 whole, then two days of instance 126
        // (2026-11-06 06:00); the single event keeps its one.
        XCTAssertEqual(cut.days.filter { $0.occurrence.event.uid == "long@x" }.count, 500)
        XCTAssertEqual(cut.days.filter { $0.occurrence.event.uid == "other@x" }.count, 500)
        XCTAssertEqual(cut.days.filter { $0.occurrence.event.uid == "single@x" }.count, 1)
        let last = cut.days.filter { $0.occurrence.event.uid == "long@x" }.suffix(2)
        XCTAssertEqual(last.map { "\($0.day.iso8601) \($0.part)/\($0.parts) \($0.occurrence.start.localTime.iso8601)" },
                       ["2026-11-06 1/4 2026-11-06T06:00:00", "2026-11-07 2/4 2026-11-06T06:00:00"])
        XCTAssertEqual(cut.warnings, [
            "event \"long@x\" (feed.ics:3) makes more than 500 day entries; kept the first 500, dropped 309 (from its occurrence starting 2026-11-06T06:00:00 on) (option max_day_entries)",
            "event \"other@x\" (feed.ics:40) makes more than 500 day entries; kept the first 500, dropped 309 (from its occurrence starting 2026-11-06T06:00:00 on) (option max_day_entries)",
        ])
        // What is kept is the beginning of what the uncut run makes, entry for entry.
        let uncut = all.days.filter { $0.occurrence.event.uid == "long@x" }.prefix(500)
        XCTAssertEqual(cut.days.filter { $0.occurrence.event.uid == "long@x" }.map(\.day), uncut.map(\.day))
        XCTAssertEqual(cut.days.filter { $0.occurrence.event.uid == "long@x" }.map(\.startUTC), uncut.map(\.startUTC))
    }

    /// `convert --shape days` sets the cap too (its warning names the option).
    func testConvertTakesTheCap() throws {
        let dir = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:m@x\r\nDTSTART:20261102T080000Z\r\nDURATION:PT1M\r\nRRULE:FREQ=MINUTELY;COUNT=100\r\nSUMMARY:M\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            .write(to: dir.appendingPathComponent("m.ics"), atomically: true, encoding: .utf8)
        let result = try CalpipeProcess.run(["convert", "m.ics", "-o", "days.json", "--shape", "days", "--from", "2026-11-02", "--to", "2026-11-03",
                                             "--tz", "UTC", "--max-day-entries", "10"], in: dir)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("makes more than 10 day entries; kept the first 10, dropped 90"), result.stderr)
        let doc = try JSONParser.parse(try String(contentsOf: dir.appendingPathComponent("days.json"), encoding: .utf8))
        let entries = (doc.value(atDottedPath: "days")?.arrayValue ?? []).flatMap { $0.value(atDottedPath: "entries")?.arrayValue ?? [] }
        XCTAssertEqual(entries.count, 10)
    }

    func testTheCapIsAnOptionOfSplit() throws {
        let loader = PipelineLoader(registry: .standard, environment: ["TZ": "UTC"])
        func caps(_ stages: String) throws -> [Int] {
            let text = #"{"sources": [{"type": "json", "path": "a.json"}], "stages": \#(stages), "sinks": [{"type": "json", "path": "out.json"}]}"#
            let pipeline = try loader.load(json: try JSONParser.parse(text), file: "p.json", baseDirectory: URL(fileURLWithPath: "/tmp"))
            return pipeline.stages.compactMap { ($0 as? SplitStage)?.maxDayEntries }
        }
        XCTAssertEqual(try caps(#"[{"type": "expand"}, {"type": "split"}]"#), [100_000])
        XCTAssertEqual(try caps(#"[{"type": "expand"}, {"type": "split", "max_day_entries": 2500}]"#), [2500])
        XCTAssertThrowsError(try caps(#"[{"type": "expand"}, {"type": "split", "max_day_entries": 0}]"#)) { error in
            XCTAssertTrue("\(error)".contains("p.json: stages[1].max_day_entries:"), "\(error)")
        }
    }

    /// `count` is what `split` makes, for every kind of occurrence, in and out of a window.
    func testCountIsWhatSplitMakes() throws {
        let zone = berlin
        let cases: [(EventTime, EventTime)] = [
            (.zoned(T.local(2026, 11, 12, 22), zone), .zoned(T.local(2026, 11, 13, 2), zone)),
            (.zoned(T.local(2026, 11, 12, 9), zone), .zoned(T.local(2026, 11, 12, 9), zone)),
            (.zoned(T.local(2026, 11, 12, 9), zone), .zoned(T.local(2026, 11, 14, 0), zone)),
            (.zoned(T.local(2026, 10, 24, 12), zone), .zoned(T.local(2026, 10, 26, 12), zone)),  // across the DST change
            (.utc(1_790_000_000), .utc(1_790_000_000 + 40 * 86_400)),
            (.date(T.date(2026, 11, 3)), .date(T.date(2026, 11, 6))),
            (.date(T.date(2026, 11, 3)), .date(T.date(2026, 11, 3))),
            (.date(T.date(2026, 10, 1)), .date(T.date(2027, 2, 1))),
            (.floating(T.local(2026, 12, 31, 23)), .floating(T.local(2027, 1, 1, 1))),
        ]
        let windows: [Window?] = [nil, Window(from: T.date(2026, 11, 4), to: T.date(2026, 11, 13)), Window(from: T.date(2027, 1, 1), to: T.date(2027, 1, 2))]
        for (start, end) in cases {
            let occurrence = Occurrence(single: Event(uid: "e", start: start, endSpec: .end(end), title: "E"))
            for window in windows {
                let splitter = DaySplitter(zone: zone, window: window)
                var out: [DayEntry] = []
                splitter.split(occurrence, into: &out)
                XCTAssertEqual(splitter.count(occurrence), out.count, "\(start) - \(end) in \(String(describing: window))")
            }
        }
    }
}
