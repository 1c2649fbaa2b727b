import CalSQLite
import CalpipeKit
@testable import Exporters
import XCTest
@testable import Pipeline

/// Incremental runs (issue 18, docs/incremental.md): a re-run leaves unchanged sources unread and unchanged
/// events unwritten, and its database holds the same rows as a fresh load of the same feed into an empty one.
final class IncrementalRunTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-incremental-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    static var registry: PluginRegistry { .standard }

    /// One VEVENT of the generated feed; `feed` turns a list of them into a calendar.
    struct Item {
        var uid: String
        var lines: [String]
    }

    static func stamp(_ d: CivilDate) -> String { d.iso8601.replacingOccurrences(of: "-", with: "") }

    /// One event in Europe/Berlin from `start` to `end` (local `yyyyMMddTHHmmss`), with a rule when given.
    static func berlin(_ uid: String, _ summary: String, _ start: String, _ end: String, rule: String? = nil) -> Item {
        Item(uid: uid, lines: ["UID:\(uid)", "DTSTAMP:20261101T000000Z", "SUMMARY:\(summary)", "DTSTART;TZID=Europe/Berlin:\(start)",
                               "DTEND;TZID=Europe/Berlin:\(end)"] + (rule.map { ["RRULE:\($0)"] } ?? []))
    }

    /// A feed of `count` events around November and December 2026 in Europe/Berlin: timed, all-day over
    /// several days, across midnight, weekly and daily series (COUNT or open-ended), some with overrides;
    /// some start before the window and some after it.
    static func items(count: Int) -> [Item] {
        let first = CivilDate(year: 2026, month: 10, day: 20)
        var out: [Item] = []
        for i in 0..<count {
            let day = first.adding(days: (i * 7) % 85)
            let hour = 8 + i % 10
            let uid = "ev-\(i)@calpipe.test"
            var lines = ["UID:\(uid)", "DTSTAMP:20261101T000000Z", "SUMMARY:Event \(i)", "LOCATION:Room \(i % 9)"]
            if i % 7 == 3 {
                lines += ["DTSTART;VALUE=DATE:\(stamp(day))", "DTEND;VALUE=DATE:\(stamp(day.adding(days: 1 + i % 4)))"]
            } else if i % 11 == 5 {
                lines += ["DTSTART;TZID=Europe/Berlin:\(stamp(day))T230000", "DTEND;TZID=Europe/Berlin:\(stamp(day.adding(days: 1)))T013000"]
            } else {
                lines += ["DTSTART;TZID=Europe/Berlin:\(stamp(day))T\(hour < 10 ? "0" : "")\(hour)0000",
                          "DTEND;TZID=Europe/Berlin:\(stamp(day))T\(hour + 1 < 10 ? "0" : "")\(hour + 1)3000"]
            }
            if i % 5 == 0 { lines.append(i % 10 == 0 ? "RRULE:FREQ=WEEKLY;COUNT=12" : "RRULE:FREQ=DAILY;INTERVAL=3") }
            out.append(Item(uid: uid, lines: lines))
            if i % 20 == 0, i % 7 != 3, i % 11 != 5 {
                // An override of the series' second instance, an hour later.
                let instance = day.adding(days: 7)
                out.append(Item(uid: uid, lines: [
                    "UID:\(uid)", "DTSTAMP:20261101T000000Z", "RECURRENCE-ID;TZID=Europe/Berlin:\(stamp(instance))T\(hour < 10 ? "0" : "")\(hour)0000",
                    "SUMMARY:Event \(i) (moved)",
                    "DTSTART;TZID=Europe/Berlin:\(stamp(instance))T\(hour + 1 < 10 ? "0" : "")\(hour + 1)0000",
                    "DTEND;TZID=Europe/Berlin:\(stamp(instance))T\(hour + 2 < 10 ? "0" : "")\(hour + 2)0000",
                ]))
            }
        }
        return out
    }

    /// `header` goes after VERSION and PRODID (calendar properties), `trailer` after the events (a VTIMEZONE may
    /// follow the events that name it).
    static func feed(_ items: [Item], header: String = "", trailer: String = "") -> String {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calpipe//incremental test//EN\r\n" + header
        for item in items { text += "BEGIN:VEVENT\r\n" + item.lines.map { $0 + "\r\n" }.joined() + "END:VEVENT\r\n" }
        return text + trailer + "END:VCALENDAR\r\n"
    }

    func writeFeed(_ items: [Item], name: String = "feed.ics", header: String = "", trailer: String = "") throws {
        try Self.feed(items, header: header, trailer: trailer).write(to: dir.appendingPathComponent(name), atomically: false, encoding: .utf8)
    }

    func pipelineText(db: String, from: String = "2026-11-01", to: String = "2027-01-01", zone: String = "Europe/Berlin",
                      stages: String = #"[{"type": "expand"}, {"type": "split"}]"#, keepRemoved: Bool = false, sourceText: Bool = false) -> String {
        """
        {"name": "incremental", "timezone": "\(zone)", "window": {"from": "\(from)", "to": "\(to)"},
         "sources": [{"type": "ics", "path": "feed.ics"}],
         "stages": \(stages),
         "sinks": [{"type": "sqlite", "path": "\(db)", "keep_removed": \(keepRemoved), "source_text": \(sourceText)}]}
        """
    }

    @discardableResult
    func run(_ pipeline: String, incremental: Bool = true) throws -> RunReport {
        let loader = PipelineLoader(registry: Self.registry, environment: ["TZ": "UTC"], now: Date(timeIntervalSince1970: 1_795_348_800))
        let definition = try loader.load(json: try JSONParser.parse(pipeline), file: "p.json", baseDirectory: dir)
        let context = RunContext(environment: definition.environment, quiet: true)
        try Runner(incremental: incremental).run(definition, context: context)
        return context.report
    }

    /// Every row by its keys, without row ids, run ids and origins (which differ between two files that hold
    /// the same data); occurrences and day entries inside `window` only, when given (rows outside a moved
    /// window are history an incremental run keeps, docs/sqlite-schema.md).
    func rows(_ file: String, window: (String, String)? = nil) throws -> [String: [[SQLiteValue]]] {
        let db = try Database(path: dir.appendingPathComponent(file).path, configuration: .init(readOnly: true))
        let eventColumns = try db.rows("SELECT name FROM pragma_table_info('events')").compactMap { $0[0].text }
            .filter { !["id", "origin", "created_run", "updated_run", "removed_run"].contains($0) }
        var out: [String: [[SQLiteValue]]] = [:]
        // With a window: the events that have an occurrence in it (events outside a window are history too).
        let eventWhere = window.map { "EXISTS (SELECT 1 FROM occurrences o WHERE o.event_id = events.id AND o.start_local < '\($0.1)T00:00:00' AND o.end_local > '\($0.0)T00:00:00')" } ?? "1"
        out["events"] = try db.rows("SELECT \(eventColumns.joined(separator: ", ")) FROM events WHERE \(eventWhere) ORDER BY source, uid, recurrence_id")
        out["attendees"] = try db.rows("""
            SELECT e.source, e.uid, e.recurrence_id, a.position, a.name, a.email, a.role, a.status, a.other_parameters
            FROM attendees a JOIN events e ON e.id = a.event_id ORDER BY 1, 2, 3, 4
            """)
        var occurrenceWhere = "1"
        var dayWhere = "1"
        if let (from, to) = window {
            occurrenceWhere = "o.start_local < '\(to)T00:00:00' AND o.end_local > '\(from)T00:00:00'"
            dayWhere = "d.day >= '\(from)' AND d.day < '\(to)'"
        }
        out["occurrences"] = try db.rows("""
            SELECT e.source, e.uid, e.recurrence_id, o.instance, o.all_day, o.start_utc, o.end_utc, o.start_local, o.end_local, o.removed_run IS NULL
            FROM occurrences o JOIN events e ON e.id = o.event_id WHERE \(occurrenceWhere) ORDER BY 1, 2, 3, 4
            """)
        out["day_entries"] = try db.rows("""
            SELECT e.source, e.uid, e.recurrence_id, o.instance, d.day, d.part, d.parts, d.all_day, d.start_local, d.end_local,
                   d.start_utc, d.end_utc, d.sort_key, d.removed_run IS NULL, de.uid
            FROM day_entries d JOIN occurrences o ON o.id = d.occurrence_id JOIN events e ON e.id = o.event_id
            JOIN events de ON de.id = d.event_id WHERE \(dayWhere) ORDER BY 1, 2, 3, 4, 5
            """)
        out["integrity"] = try db.rows("PRAGMA foreign_key_check")
        return out
    }

    func assertSameRows(_ a: [String: [[SQLiteValue]]], _ b: [String: [[SQLiteValue]]], file: StaticString = #filePath, line: UInt = #line) {
        for table in ["events", "attendees", "occurrences", "day_entries", "integrity"] {
            let x = a[table] ?? [], y = b[table] ?? []
            XCTAssertEqual(x.count, y.count, "\(table): row counts differ", file: file, line: line)
            if x != y {
                let firstDiff = x.indices.first { !y.indices.contains($0) || x[$0] != y[$0] } ?? x.count
                XCTFail("\(table): rows differ, first at \(firstDiff): \(x.indices.contains(firstDiff) ? "\(x[firstDiff])" : "-") vs \(y.indices.contains(firstDiff) ? "\(y[firstDiff])" : "-")",
                        file: file, line: line)
            }
        }
    }

    func testUnchangedReRunReadsNothingAndChangesNoRow() throws {
        try writeFeed(Self.items(count: 400))
        let first = try run(pipelineText(db: "a.db"))
        XCTAssertEqual(first.counter("sources unchanged (not read)"), 0)
        XCTAssertGreaterThan(first.eventsRead, 400)
        let before = try rows("a.db")
        XCTAssertGreaterThan(before["day_entries"]!.count, 1000)
        let second = try run(pipelineText(db: "a.db"))
        XCTAssertEqual(second.counter("sources unchanged (not read)"), 1)
        XCTAssertEqual(second.eventsRead, 0, "the unchanged source was read")
        XCTAssertEqual(try rows("a.db"), before)
        // The file touched (same bytes, new mtime): read again, every event unchanged, nothing written.
        let path = dir.appendingPathComponent("feed.ics").path
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: path)
        let third = try run(pipelineText(db: "a.db"))
        XCTAssertEqual(third.counter("sources unchanged (not read)"), 0)
        XCTAssertEqual(third.counter("sqlite a.db: rows changed"), 0)
        XCTAssertEqual(third.outcomes(of: "sqlite a.db")[.unchanged], before["events"]!.count)
        XCTAssertEqual(try rows("a.db"), before)
    }

    /// Changes of every kind at once: a retitled event, a removed one, a new one, a retimed series, a changed
    /// override, a new override of a series that had none, a removed override, an event moved into another day.
    func testChangedEventsGiveTheRowsOfAFreshLoad() throws {
        var items = Self.items(count: 400)
        try writeFeed(items)
        try run(pipelineText(db: "a.db"))
        func index(_ uid: String, override: Bool = false) -> Int {
            items.firstIndex { $0.uid == uid && $0.lines.contains { $0.hasPrefix("RECURRENCE-ID") } == override }!
        }
        items[index("ev-3@calpipe.test")].lines[2] = "SUMMARY:Event 3, retitled"
        items.remove(at: index("ev-4@calpipe.test"))
        items.append(Item(uid: "new@calpipe.test", lines: ["UID:new@calpipe.test", "DTSTAMP:20261101T000000Z", "SUMMARY:New",
                                                            "DTSTART;VALUE=DATE:20261203", "DTEND;VALUE=DATE:20261205"]))
        let series = index("ev-10@calpipe.test")
        items[series].lines = items[series].lines.map { $0.hasPrefix("RRULE") ? "RRULE:FREQ=WEEKLY;COUNT=5" : $0 }
        items[index("ev-40@calpipe.test", override: true)].lines[3] = "SUMMARY:Event 40 (moved again)"
        let plain = index("ev-25@calpipe.test")
        let instance = items[plain].lines.first { $0.hasPrefix("DTSTART") }!.replacingOccurrences(of: "DTSTART", with: "RECURRENCE-ID")
        items.append(Item(uid: "ev-25@calpipe.test", lines: ["UID:ev-25@calpipe.test", "DTSTAMP:20261101T000000Z", instance,
                                                              "SUMMARY:Event 25, first one moved", "DTSTART;VALUE=DATE:20261130"]))
        items.remove(at: index("ev-100@calpipe.test", override: true))
        items[index("ev-7@calpipe.test")].lines = items[index("ev-7@calpipe.test")].lines.map {
            $0.hasPrefix("DTSTART") || $0.hasPrefix("DTEND") ? $0.replacingOccurrences(of: "T1", with: "T0") : $0
        }
        try writeFeed(items)
        let report = try run(pipelineText(db: "a.db"))
        XCTAssertGreaterThan(report.outcomes(of: "sqlite a.db")[.unchanged], 300, "the run was not incremental")
        XCTAssertGreaterThan(report.counter("sqlite a.db: rows changed"), 0)
        // Unchanged events were left out by their raw text, unparsed: all but the retitled (ev-3), new and moved
        // (ev-7) single events and the parts of the series that changed: ev-10 (master), ev-40 (master and changed
        // override), ev-25 (master and new override), ev-100 (master, its override gone).
        XCTAssertEqual(report.eventsRead, 9)
        XCTAssertEqual(report.counter("events unchanged (not parsed)"), items.count - 9)
        try run(pipelineText(db: "b.db"))
        assertSameRows(try rows("a.db"), try rows("b.db"))
    }

    /// Events are left unparsed by their text only while what surrounds them is the same: a changed VTIMEZONE
    /// (here after the events that name it), a new calendar name or X-WR-TIMEZONE makes every event parsed again,
    /// and the rows are those of a fresh load.
    func testChangedContextParsesEveryEvent() throws {
        func zone(_ offset: String) -> String {
            "BEGIN:VTIMEZONE\r\nTZID:Custom/Office\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\n"
                + "TZOFFSETFROM:\(offset)\r\nTZOFFSETTO:\(offset)\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        }
        var items = Self.items(count: 150)
        for i in items.indices where i % 2 == 0 {
            items[i].lines = items[i].lines.map { $0.replacingOccurrences(of: "TZID=Europe/Berlin", with: "TZID=Custom/Office") }
        }
        try writeFeed(items, trailer: zone("+0300"))
        try run(pipelineText(db: "a.db"))
        items[5].lines[2] = "SUMMARY:changed"
        try writeFeed(items, trailer: zone("+0300"))
        var report = try run(pipelineText(db: "a.db"))
        XCTAssertGreaterThan(report.counter("events unchanged (not parsed)"), 80)
        for (header, trailer) in [("", zone("+0500")), ("X-WR-CALNAME:Team\r\n", zone("+0500")), ("X-WR-TIMEZONE:Asia/Tokyo\r\n", zone("+0500"))] {
            try writeFeed(items, header: header, trailer: trailer)
            report = try run(pipelineText(db: "a.db"))
            XCTAssertEqual(report.counter("events unchanged (not parsed)"), 0, header)
            XCTAssertEqual(report.counter("sources unchanged (not read)"), 0, header)
            try? FileManager.default.removeItem(at: dir.appendingPathComponent("b.db"))
            try run(pipelineText(db: "b.db"))
            assertSameRows(try rows("a.db"), try rows("b.db"))
        }
    }

    /// Makes a file of schema 11 one of schema 9 again: an `occurrences` table (numbered 1...n) and day entries
    /// pointing at it, without the folded columns; the indexes and `agenda` view of version 9.
    static let version10Undone = """
        PRAGMA foreign_keys = OFF;
        DROP VIEW agenda;
        CREATE TABLE occurrences_v9 (
            id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE, instance TEXT NOT NULL,
            all_day INTEGER NOT NULL, start_utc INTEGER NOT NULL, end_utc INTEGER NOT NULL, start_local TEXT NOT NULL,
            end_local TEXT NOT NULL, removed_run INTEGER
        );
        CREATE TEMP TABLE numbering AS SELECT id AS old, row_number() OVER (ORDER BY id) AS new FROM occurrences;
        INSERT INTO occurrences_v9 SELECT n.new, o.event_id, o.instance, o.all_day, o.start_utc, o.end_utc, o.start_local, o.end_local, o.removed_run
            FROM occurrences o JOIN temp.numbering n ON n.old = o.id;
        CREATE TABLE day_entries_v9 (
            id INTEGER PRIMARY KEY, occurrence_id INTEGER NOT NULL REFERENCES occurrences (id) ON DELETE CASCADE,
            event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE, day TEXT NOT NULL, part INTEGER NOT NULL,
            parts INTEGER NOT NULL, all_day INTEGER NOT NULL, start_local TEXT NOT NULL, end_local TEXT NOT NULL,
            start_utc INTEGER NOT NULL, end_utc INTEGER NOT NULL, sort_key TEXT NOT NULL, removed_run INTEGER
        );
        INSERT INTO day_entries_v9 SELECT d.id, n.new, d.event_id, d.day, d.part, d.parts, d.all_day, d.start_local, d.end_local,
            d.start_utc, d.end_utc, d.sort_key, d.removed_run FROM day_entries d JOIN temp.numbering n ON n.old = d.occurrence_id;
        DROP VIEW occurrences;
        DROP VIEW day_entries;
        DROP TABLE day_rows;
        ALTER TABLE occurrences_v9 RENAME TO occurrences;
        ALTER TABLE day_entries_v9 RENAME TO day_entries;
        DROP TABLE temp.numbering;
        \(SQLiteSchema.version3Indexes.map { $0.sql + ";" }.joined(separator: "\n"))
        \(SQLiteSchema.agendaViewV8)
        PRAGMA user_version = 9;
        """

    /// A file of schema version 5 (no text hashes) is upgraded: its next run reads the source in full and stores
    /// every text hash, so the run after it leaves unchanged events unparsed.
    func testVersion5FileGetsTextHashesOnItsNextRun() throws {
        var items = Self.items(count: 100)
        try writeFeed(items)
        try run(pipelineText(db: "a.db"))
        do {
            let db = try Database(path: dir.appendingPathComponent("a.db").path)
            try db.execute(Self.version10Undone)
            try db.execute("ALTER TABLE events DROP COLUMN text_hash; ALTER TABLE source_state DROP COLUMN context_hash; ALTER TABLE source_state DROP COLUMN source_text; ALTER TABLE days RENAME COLUMN date TO day; DROP TABLE plugin_state; PRAGMA user_version = 5")
        }
        // Items 2 and 3 are single events (item 1 is an override of the series of item 0).
        items[2].lines[2] = "SUMMARY:changed"
        try writeFeed(items)
        var report = try run(pipelineText(db: "a.db"))
        XCTAssertEqual(report.outcomes(of: "sqlite a.db")[.unchanged], 0, "read in full after the upgrade")
        XCTAssertEqual(try Database(path: dir.appendingPathComponent("a.db").path).scalarInt("SELECT count(*) FROM events WHERE text_hash IS NULL"), 0)
        items[3].lines[2] = "SUMMARY:changed too"
        try writeFeed(items)
        report = try run(pipelineText(db: "a.db"))
        XCTAssertGreaterThan(report.counter("events unchanged (not parsed)"), 50)
        try run(pipelineText(db: "b.db"))
        assertSameRows(try rows("a.db"), try rows("b.db"))
    }

    /// The sink option `source_text` changed between runs: the source is read in full (no kept row keeps the old
    /// setting's text), and the rows equal a fresh load with the new setting. A file of schema version 6 (which always
    /// stored the text) counts as written with it.
    func testSourceTextSettingChangeReadsTheSourceInFull() throws {
        var items = Self.items(count: 60)
        try writeFeed(items)
        try run(pipelineText(db: "a.db", sourceText: true))
        let path = dir.appendingPathComponent("a.db").path
        XCTAssertEqual(try Database(path: path).scalarInt("SELECT count(*) FROM events WHERE source_text LIKE 'BEGIN:VEVENT%'"),
                       try Database(path: path).scalarInt("SELECT count(*) FROM events"))
        var report = try run(pipelineText(db: "a.db"))
        XCTAssertEqual(report.outcomes(of: "sqlite a.db")[.unchanged], 0, "read in full: the setting changed")
        XCTAssertEqual(try Database(path: path).scalarInt("SELECT count(*) FROM events WHERE source_text IS NOT NULL"), 0)
        try run(pipelineText(db: "b.db"))
        assertSameRows(try rows("a.db"), try rows("b.db"))
        items[2].lines[2] = "SUMMARY:changed"
        try writeFeed(items)
        report = try run(pipelineText(db: "a.db"))
        XCTAssertGreaterThan(report.counter("events unchanged (not parsed)"), 30, "same setting: incremental again")
        try run(pipelineText(db: "b.db"))
        // Schema 6 always wrote the text: after the upgrade the file counts as written with it.
        do {
            let db = try Database(path: path)
            try db.execute(Self.version10Undone)
            try db.execute("UPDATE events SET source_text = 'BEGIN:VEVENT'; ALTER TABLE source_state DROP COLUMN source_text; ALTER TABLE days RENAME COLUMN date TO day; DROP TABLE plugin_state; PRAGMA user_version = 6")
        }
        report = try run(pipelineText(db: "a.db"))
        XCTAssertEqual(report.outcomes(of: "sqlite a.db")[.unchanged], 0, "read in full after the upgrade")
        XCTAssertEqual(try Database(path: path).userVersion, 12)
        assertSameRows(try rows("a.db"), try rows("b.db"))
    }

    /// An unchanged event that now appears twice: the copy is parsed, both go to the sink, which keeps the
    /// last, as a fresh load does.
    func testUnchangedEventTwiceGivesTheRowsOfAFreshLoad() throws {
        var items = Self.items(count: 120)
        try writeFeed(items)
        try run(pipelineText(db: "a.db"))
        // Item 2 (a single event) twice, the first copy changed: the unchanged copy, last, is left unparsed and
        // wins. Item 3 twice, the second copy changed: the changed copy wins. Item 4 twice, unchanged.
        items.append(items[2])
        items[2].lines[3] = "LOCATION:elsewhere"
        items.append(items[3])
        items[items.count - 1].lines[3] = "LOCATION:elsewhere too"
        items.append(items[4])
        try writeFeed(items)
        let report = try run(pipelineText(db: "a.db"))
        XCTAssertGreaterThan(report.counter("events unchanged (not parsed)"), 50)
        try run(pipelineText(db: "b.db"))
        assertSameRows(try rows("a.db"), try rows("b.db"))
    }

    func testMovedWindowGivesTheRowsOfAFreshLoadInsideIt() throws {
        try writeFeed(Self.items(count: 400))
        try run(pipelineText(db: "a.db"))
        for (from, to) in [("2026-11-02", "2027-01-02"), ("2026-11-09", "2027-01-09"), ("2026-11-05", "2026-12-20"), ("2026-10-25", "2027-01-05")] {
            let report = try run(pipelineText(db: "a.db", from: from, to: to))
            XCTAssertGreaterThan(report.outcomes(of: "sqlite a.db")[.unchanged], 300, "\(from)-\(to): the run was not incremental")
            // Single events that touch no gained day were left unparsed.
            XCTAssertGreaterThan(report.counter("events unchanged (not parsed)"), 100, "\(from)-\(to)")
            try? FileManager.default.removeItem(at: dir.appendingPathComponent("b.db"))
            try run(pipelineText(db: "b.db", from: from, to: to))
            assertSameRows(try rows("a.db", window: (from, to)), try rows("b.db", window: (from, to)))
        }
    }

    /// A COUNT series stores the end of its last instance (found by expanding it once), so a moved window that
    /// gains days after that end leaves the series unparsed, as it leaves a single event; an open-ended series
    /// reaches every gained day and is parsed.
    func testMovedWindowLeavesAnEndedCountSeriesUnparsed() throws {
        let items = [
            Self.berlin("count@calpipe.test", "Three weeks", "20261102T090000", "20261102T100000", rule: "FREQ=WEEKLY;COUNT=3"),
            Self.berlin("open@calpipe.test", "Every day", "20261102T120000", "20261102T123000", rule: "FREQ=DAILY"),
            Self.berlin("single@calpipe.test", "Once", "20261110T090000", "20261110T100000"),
        ]
        try writeFeed(items)
        try run(pipelineText(db: "a.db", from: "2026-11-01", to: "2026-12-01"))
        let report = try run(pipelineText(db: "a.db", from: "2026-11-02", to: "2026-12-02"))
        // The COUNT series (ended 2026-11-16) and the single event; the daily series reaches 2026-12-01.
        XCTAssertEqual(report.counter("events unchanged (not parsed)"), 2)
        try run(pipelineText(db: "b.db", from: "2026-11-02", to: "2026-12-02"))
        assertSameRows(try rows("a.db", window: ("2026-11-02", "2026-12-02")), try rows("b.db", window: ("2026-11-02", "2026-12-02")))
    }

    /// A series whose instances in the days a moved window gains outgrow one batch of the expand stage
    /// (`ExpandStage.finishBatchDays`): the gained days are expanded in chunks, as a fresh load expands the
    /// series, and none of their instances is lost.
    func testMovedWindowGainingMoreInstancesThanOneBatchKeepsThemAll() throws {
        let items = [
            Self.berlin("minutely@calpipe.test", "Every minute", "20261102T000000", "20261102T000500", rule: "FREQ=MINUTELY"),
            Self.berlin("single@calpipe.test", "Once", "20261103T090000", "20261103T100000"),
        ]
        try writeFeed(items)
        try run(pipelineText(db: "a.db", from: "2026-11-01", to: "2026-11-04"))
        // Seven days gained: 10,080 instances, more than one batch holds for an event that touches two days.
        XCTAssertGreaterThan(7 * 1440, ExpandStage.finishBatchDays / 2)
        let report = try run(pipelineText(db: "a.db", from: "2026-11-01", to: "2026-11-11"))
        XCTAssertEqual(report.counter("events unchanged (not parsed)"), 1, "the run was not incremental")
        try run(pipelineText(db: "b.db", from: "2026-11-01", to: "2026-11-11"))
        let a = try rows("a.db", window: ("2026-11-01", "2026-11-11")), b = try rows("b.db", window: ("2026-11-01", "2026-11-11"))
        XCTAssertEqual(b["occurrences"]?.count, 9 * 1440 + 1)
        assertSameRows(a, b)
    }

    func testMovedWindowAndChangedFeedTogether() throws {
        var items = Self.items(count: 300)
        try writeFeed(items)
        try run(pipelineText(db: "a.db"))
        items[12].lines[2] = "SUMMARY:changed"
        items.remove(at: 30)
        try writeFeed(items)
        try run(pipelineText(db: "a.db", from: "2026-11-03", to: "2027-01-03"))
        try run(pipelineText(db: "b.db", from: "2026-11-03", to: "2027-01-03"))
        assertSameRows(try rows("a.db", window: ("2026-11-03", "2027-01-03")), try rows("b.db", window: ("2026-11-03", "2027-01-03")))
    }

    /// An unchanged feed under another config (zone, stages) is read and written again, not skipped.
    func testAnotherConfigIsNotSkipped() throws {
        try writeFeed(Self.items(count: 200))
        try run(pipelineText(db: "a.db"))
        let filtered = #"[{"type": "expand"}, {"type": "filter", "title_contains": "1"}, {"type": "split"}]"#
        for (zone, stages) in [("America/New_York", #"[{"type": "expand"}, {"type": "split"}]"#), ("Europe/Berlin", filtered)] {
            let report = try run(pipelineText(db: "a.db", zone: zone, stages: stages))
            XCTAssertEqual(report.counter("sources unchanged (not read)"), 0, zone)
            XCTAssertEqual(report.outcomes(of: "sqlite a.db")[.unchanged], 0, zone)
            try? FileManager.default.removeItem(at: dir.appendingPathComponent("b.db"))
            try run(pipelineText(db: "b.db", zone: zone, stages: stages))
            assertSameRows(try rows("a.db", window: ("2026-11-01", "2027-01-01")), try rows("b.db", window: ("2026-11-01", "2027-01-01")))
        }
    }

    func testKeepRemovedIncrementalMatchesAFullRun() throws {
        var items = Self.items(count: 200)
        try writeFeed(items)
        try run(pipelineText(db: "a.db", keepRemoved: true))
        try run(pipelineText(db: "b.db", keepRemoved: true))
        items.remove(at: 17)
        items[40].lines[2] = "SUMMARY:changed"
        try writeFeed(items)
        let report = try run(pipelineText(db: "a.db", keepRemoved: true))
        XCTAssertGreaterThan(report.outcomes(of: "sqlite a.db")[.unchanged], 100)
        try run(pipelineText(db: "b.db", keepRemoved: true), incremental: false)
        assertSameRows(try rows("a.db"), try rows("b.db"))
    }
}
