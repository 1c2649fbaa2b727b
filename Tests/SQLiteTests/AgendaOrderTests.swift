import CalSQLite
@testable import Exporters
import Foundation
import Pipeline
import XCTest

/// Agenda order is defined once (`AgendaKey`); every place that orders day entries must agree with it on the
/// tricky cases: the same start, all-day against timed, equal titles, a missing title, canonically equivalent
/// titles written differently, entries that differ only in their end, and the day boundary.
final class AgendaOrderTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Events on 2026-11-09/10 in Berlin, by source, and the UIDs (with the day) in the order the agenda shows them.
    private func feed() -> (sources: [(label: String, events: [Event])], expected: [String]) {
        let team = [
            event("late", "Late call", at(2026, 11, 9, 23), at(2026, 11, 9, 23, 30)),
            event("allday-b", "B", date(2026, 11, 10), date(2026, 11, 11)),
            event("allday-a", "A", date(2026, 11, 10), date(2026, 11, 11)),
            // Covers the 10th from 00:00 to 24:00: all-day on that day, after the all-day events titled A and B (and
            // not on the 11th, where it ends at 00:00).
            event("night", "Conference", at(2026, 11, 9, 12), at(2026, 11, 11, 0)),
            event("t1", "Zeta", at(2026, 11, 10, 9), at(2026, 11, 10, 10)),
            event("t2", "Alpha", at(2026, 11, 10, 9), at(2026, 11, 10, 10)),
            // Equal titles as Swift sees them (one precomposed "é", one "e" + U+0301): the UID decides, although
            // the decomposed title's bytes come first.
            event("u2", "Cafe\u{301}", at(2026, 11, 10, 9), at(2026, 11, 10, 10)),
            event("u1", "Caf\u{E9}", at(2026, 11, 10, 9), at(2026, 11, 10, 10)),
            event("early", "Zzz", at(2026, 11, 10, 8), at(2026, 11, 10, 8, 15)),
            event("b-upper", "Bar", at(2026, 11, 10, 10), at(2026, 11, 10, 11)),
            event("a-umlaut", "\u{C4}rger", at(2026, 11, 10, 10), at(2026, 11, 10, 11)),
            event("b-lower", "bar", at(2026, 11, 10, 10), at(2026, 11, 10, 11)),
        ]
        // The same title, UID and start in two sources: the shorter one first.
        let other = [
            event("same", "Sync", at(2026, 11, 10, 11), at(2026, 11, 10, 13)),
        ]
        let third = [
            event("same", "Sync", at(2026, 11, 10, 11), at(2026, 11, 10, 12)),
            event("untitled", "", at(2026, 11, 10, 9), at(2026, 11, 10, 9, 30)) { $0.title = nil },
        ]
        let expected = [
            "2026-11-09 night", "2026-11-09 late",
            "2026-11-10 allday-a", "2026-11-10 allday-b", "2026-11-10 night",
            "2026-11-10 early",
            "2026-11-10 untitled", "2026-11-10 t2", "2026-11-10 u1", "2026-11-10 u2", "2026-11-10 t1",
            "2026-11-10 b-upper", "2026-11-10 b-lower", "2026-11-10 a-umlaut",
            "2026-11-10 same", "2026-11-10 same",
        ]
        return ([("team", team), ("other", other), ("third", third)], expected)
    }

    private var window: Window { Window(from: CivilDate(year: 2026, month: 11, day: 9), to: CivilDate(year: 2026, month: 11, day: 12)) }

    private func entries() throws -> [DayEntry] {
        let env = PipelineEnvironment(pipelineFile: "order.json", baseDirectory: URL(fileURLWithPath: "/tmp"), name: "order", zone: berlin,
                                      window: window, environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 11, day: 1))
        let context = RunContext(environment: env, quiet: true)
        var out: [DayEntry] = []
        for source in feed().sources {
            let events = source.events.map { e -> Event in
                var e = e
                e.metadata["source"] = source.label
                return e
            }
            out += try SplitStage().process(Batch(events: events), context: context).days
        }
        // Shuffled in a fixed way, so no order is kept by accident.
        return out.enumerated().sorted { ($0.offset * 7919) % 101 < ($1.offset * 7919) % 101 }.map(\.element)
    }

    private func name(_ e: DayEntry) -> String { "\(e.day.iso8601) \(e.event.uid)" }

    func testDayEntriesSortInAgendaOrder() throws {
        let expected = feed().expected
        XCTAssertEqual(try entries().sorted(by: DayEntry.agendaOrder).map(name), expected)
        // The same-title pair differs only in its end: the shorter first.
        let same = try entries().filter { $0.event.uid == "same" }.sorted(by: DayEntry.agendaOrder)
        XCTAssertEqual(same.map(\.endUTC), same.map(\.endUTC).sorted())
    }

    /// The JSON sink's spool compares rendered bytes: in memory and across spilled runs, it agrees.
    func testTheJSONSpoolAgrees() throws {
        for runBytes in [DayEntrySpool.defaultRunBytes, 64] {
            let spool = DayEntrySpool(runBytes: runBytes)
            for e in try entries() { try spool.add(e.agendaKey, text: name(e)) }
            if runBytes == 64 { XCTAssertGreaterThan(spool.spilledRuns, 1) }
            var drained: [String] = []
            try spool.drain { drained.append(String(decoding: $0.text, as: UTF8.self)) }
            XCTAssertEqual(drained, feed().expected, "run bytes \(runBytes)")
        }
    }

    /// The HTML page keeps each day's first entries by the same key.
    func testTheHTMLPageAgrees() throws {
        var collector = HTMLDayCollector(cap: 100)
        let renderer = HTMLEntryRenderer(locale: AgendaLocale(identifier: "en"))
        for e in try entries() { collector.add(e, renderer: renderer) }
        let shown = collector.days.keys.sorted().flatMap { day in collector.days[day]!.entries.map(\.key) }
        XCTAssertEqual(shown.map { "\(CivilDate(daysSinceEpoch: $0.day).iso8601) \($0.uid)" }, feed().expected)
    }

    /// The SQLite sink's sort_key and the `agenda` view's ORDER BY give the order for titles in NFC; the reader
    /// (`calpipe agenda`, `calpipe query`) gives it for every title.
    func testTheSQLiteSinkAgrees() throws {
        let path = dir.appendingPathComponent("agenda.db").path
        let (sources, expected) = feed()
        try runSink(path: path, sources: sources.map { ($0.label, ListSource([$0.events]) as EventSource) }, window: window)
        let reader = try SQLiteAgendaReader(path: path)
        let days = try reader.agendaDays(from: window.from, to: window.to, zone: berlin, everyDay: false)
        XCTAssertEqual(days.flatMap { $0.entries.map(name) }, expected)

        let db = try Database(path: path, configuration: .init(readOnly: true))
        let view = try db.rows("SELECT day || ' ' || uid, title FROM agenda").map { ($0[0].text ?? "", $0[1].text ?? "") }
        // (Compared as bytes: Swift's == finds canonically equivalent texts equal.)
        let nfc = view.filter { Array($0.1.utf8) == Array($0.1.precomposedStringWithCanonicalMapping.utf8) }.map(\.0)
        XCTAssertEqual(nfc, expected.filter { $0 != "2026-11-10 u2" })
        XCTAssertEqual(view.count, expected.count)
    }
}
