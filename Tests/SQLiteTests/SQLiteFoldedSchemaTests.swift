import CalSQLite
@testable import Exporters
import Foundation
import Pipeline
import XCTest

/// Schema 10 (issue 30): occurrences folded into their day entries, `occurrences` a view with the old table's
/// columns and rows; schema 11: day entries stored narrow, `day_entries` a view with version 10's columns and rows;
/// schema 12: the instance as an integer key. An upgraded file answers every reader as a file written fresh does, and an occurrence's values
/// follow its event also on the day entries a moved window no longer covers.
final class SQLiteFoldedSchemaTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Real-world feeds (Outlook, Google, iCloud, Nextcloud...: zones, all-day and multi-day events, series with
    /// overrides), read by the real calpipe.
    private static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ics/corpus")

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// Runs the built calpipe in the test folder ("today" fixed); returns (status, stdout, stderr).
    @discardableResult
    private func calpipe(_ arguments: [String]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = try builtCalpipe(near: Self.self)
        process.arguments = arguments
        process.currentDirectoryURL = dir
        process.environment = ProcessInfo.processInfo.environment.merging(["SOURCE_DATE_EPOCH": "1794787200"]) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    /// Every corpus feed → expand → split → sqlite `db`, in Berlin, over `from` ..< `to`, in pipeline file `name`.json.
    private func writePipeline(_ name: String, db: String, from: String, to: String) throws {
        let feeds = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { $0.hasSuffix(".ics") }.sorted()
        XCTAssertGreaterThan(feeds.count, 20)
        let sources = feeds.map { #"{"type": "ics", "name": "\#($0)", "path": "\#(Self.corpus.appendingPathComponent($0).path)"}"# }
        let text = """
            {"name": "corpus", "timezone": "Europe/Berlin", "window": {"from": "\(from)", "to": "\(to)"},
             "sources": [\(sources.joined(separator: ", "))],
             "stages": [{"type": "expand"}, {"type": "split"}],
             "sinks": [{"type": "sqlite", "path": "\(db)"}]}
            """
        try text.write(toFile: path(name + ".json"), atomically: true, encoding: .utf8)
    }

    /// What readers see, ids included: every table but `runs` (the `occurrences` view included) and the `agenda` view.
    private func readerRows(_ file: String) throws -> [String: [[SQLiteValue]]] {
        let db = try Database(path: path(file), configuration: .init(readOnly: true))
        var out: [String: [[SQLiteValue]]] = [:]
        for table in ["events", "attendees", "occurrences", "day_entries", "forecasts", "days", "source_state", "plugin_state"] {
            out[table] = try db.rows("SELECT * FROM \(table) ORDER BY 1, 2")
        }
        out["agenda"] = try db.rows("SELECT * FROM agenda")
        out["meta"] = try db.rows("SELECT pipeline, timezone, window_from, window_to, locale, generated_at, schema_version FROM meta")
        XCTAssertEqual(try db.rows("PRAGMA foreign_key_check"), [], file)
        XCTAssertEqual(try db.integrityCheck(), ["ok"], file)
        return out
    }

    /// An empty file of schema `version` (its migrations, as that calpipe ran them) with `source` attached as
    /// `fresh` and `tables` copied from it as they are; the caller writes the rest and detaches.
    private func oldFile(version: Int, of source: String, to target: String, copying tables: [String]) throws -> Database {
        let db = try Database(path: path(target))
        for migration in SQLiteSchema.migrations.prefix(version) { try db.execute(migration) }
        try db.setUserVersion(version)
        try db.execute("ATTACH DATABASE '\(path(source))' AS fresh")
        for table in tables {
            try db.execute("INSERT INTO main.\(table) SELECT * FROM fresh.\(table)")
        }
        return db
    }

    /// The rows of the version 10 file `source` as a calpipe of schema 9 stored them: an `occurrences` table numbered
    /// 1...n in id order, day entries pointing at it, and no folded columns.
    private func writeVersion9(of source: String, to target: String) throws {
        let db = try oldFile(version: 9, of: source, to: target, copying: ["events", "attendees", "runs", "days", "meta", "source_state", "plugin_state"])
        try db.execute("""
            CREATE TEMP TABLE numbering AS SELECT id AS old, row_number() OVER (ORDER BY id) AS new FROM fresh.occurrences;
            INSERT INTO main.occurrences
                SELECT n.new, o.event_id, o.instance, o.all_day, o.start_utc, o.end_utc, o.start_local, o.end_local, o.removed_run
                FROM fresh.occurrences o JOIN temp.numbering n ON n.old = o.id;
            INSERT INTO main.day_entries (id, occurrence_id, event_id, day, part, parts, all_day, start_local, end_local, start_utc, end_utc, sort_key, removed_run)
                SELECT d.id, n.new, d.event_id, d.day, d.part, d.parts, d.all_day, d.start_local, d.end_local, d.start_utc, d.end_utc, d.sort_key, d.removed_run
                FROM fresh.day_entries d JOIN temp.numbering n ON n.old = d.occurrence_id;
            INSERT INTO main.forecasts SELECT * FROM fresh.forecasts;
            UPDATE main.meta SET schema_version = 9;
            """)
        try db.execute("DETACH DATABASE fresh")
    }

    /// The rows of the file `source` (the current schema) as a calpipe of schema 10 stored them: day entries in a
    /// table with their local times and sort key (what the `day_entries` view shows).
    private func writeVersion10(of source: String, to target: String) throws {
        let db = try oldFile(version: 10, of: source, to: target, copying: ["events", "attendees", "runs", "days", "meta", "source_state", "plugin_state", "day_entries", "forecasts"])
        try db.execute("UPDATE main.meta SET schema_version = 10")
        try db.execute("DETACH DATABASE fresh")
    }

    /// The rows of the file `source` (the current schema) as a calpipe of schema 11 stored them: `day_rows` with each
    /// occurrence's instance as text and every row's occurrence id.
    private func writeVersion11(of source: String, to target: String) throws {
        let db = try oldFile(version: 11, of: source, to: target, copying: ["events", "attendees", "runs", "days", "meta", "source_state", "plugin_state", "forecasts"])
        try db.execute("""
            INSERT INTO main.day_rows
                SELECT r.id, d.occurrence_id, r.event_id, d.instance, r.day, r.part, r.parts, r.all_day, r.start_utc, r.end_utc,
                       r.start_offset, r.end_offset, r.removed_run, r.occurrence_all_day, r.occurrence_start_utc, r.occurrence_end_utc,
                       r.occurrence_start_local, r.occurrence_end_local, r.occurrence_removed_run, r.start_local_text, r.end_local_text,
                       r.sort_key_text
                FROM fresh.day_rows r JOIN fresh.day_entries d ON d.id = r.id;
            UPDATE main.meta SET schema_version = 11;
            """)
        try db.execute("DETACH DATABASE fresh")
    }

    /// Schema 12 keeps an occurrence's instance as an integer key and its occurrence id only where it is not the row's
    /// own: an upgraded file of schema 11 shows what it showed, and its keys are those a run computes (the moved
    /// window's run below finds every row by them).
    func testUpgradeFromVersion11KeepsEveryRowAndEveryQueryAnswer() throws {
        try assertUpgradeKeepsEveryRowAndEveryQueryAnswer(writeOld: writeVersion11) { fresh, old in
            XCTAssertGreaterThan(try old.scalarInt("SELECT count(*) FROM day_rows WHERE instance <> ''") ?? 0, 100)
            let db = try Database(path: self.path("fresh.db"), configuration: .init(readOnly: true))
            XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM day_rows WHERE instance_text IS NOT NULL"), 0)
            XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM day_rows WHERE occurrence_id IS NULL"), fresh["occurrences"]!.count)
            // Instances of every form the corpus has: dates, UTC, zoned at two offsets (Berlin's and others').
            XCTAssertGreaterThan(try db.scalarInt("SELECT count(DISTINCT instance_key & 4095) FROM day_rows") ?? 0, 4)
        }
    }

    func testUpgradeFromVersion9KeepsEveryRowAndEveryQueryAnswer() throws {
        try assertUpgradeKeepsEveryRowAndEveryQueryAnswer(writeOld: writeVersion9) { fresh, old in
            // Occurrences of several days carry their own values; one of one day stores none.
            let db = try Database(path: self.path("fresh.db"), configuration: .init(readOnly: true))
            XCTAssertGreaterThan(try db.scalarInt("SELECT count(*) FROM day_entries WHERE parts > 1 AND occurrence_end_utc IS NOT NULL") ?? 0, 0)
            XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM day_entries WHERE parts = 1 AND occurrence_start_utc IS NOT NULL"), 0)
            XCTAssertEqual(try old.scalarInt("SELECT max(id) FROM occurrences"), fresh["occurrences"]!.count)
        }
    }

    /// Schema 11 stores day entries narrow (`day_rows`): the local times and sort key the `day_entries` view shows
    /// are computed, and an upgraded file of schema 10 shows what it showed.
    func testUpgradeFromVersion10KeepsEveryRowAndEveryQueryAnswer() throws {
        try assertUpgradeKeepsEveryRowAndEveryQueryAnswer(writeOld: writeVersion10) { _, old in
            XCTAssertEqual(try old.rows("SELECT type FROM sqlite_master WHERE name = 'day_entries'"), [["table"]])
            let db = try Database(path: self.path("fresh.db"), configuration: .init(readOnly: true))
            // Every local time and sort key is computed; in Berlin some day entries end at another offset than they start.
            XCTAssertEqual(try db.scalarInt("""
                SELECT count(*) FROM day_rows WHERE start_local_text IS NOT NULL OR end_local_text IS NOT NULL OR sort_key_text IS NOT NULL
                """), 0)
            XCTAssertGreaterThan(try db.scalarInt("SELECT count(*) FROM day_rows WHERE end_offset IS NOT NULL") ?? 0, 0)
            XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM day_rows WHERE start_offset NOT IN (3600, 7200)"), 0)
        }
    }

    /// Runs every corpus feed into a fresh file, makes an older file of the same rows with `writeOld` (checked by
    /// `check` with the fresh file's rows), upgrades it with a run, and compares every reader's rows, `calpipe query`,
    /// and a moved window's run on both.
    private func assertUpgradeKeepsEveryRowAndEveryQueryAnswer(
        writeOld: (String, String) throws -> Void, check: ([String: [[SQLiteValue]]], Database) throws -> Void
    ) throws {
        try writePipeline("fresh", db: "fresh.db", from: "2024-01-01", to: "2028-01-01")
        XCTAssertEqual(try calpipe(["run", "fresh.json", "-q"]).0, 0)
        let fresh = try readerRows("fresh.db")
        XCTAssertGreaterThan(fresh["occurrences"]!.count, 100)
        try writeOld("fresh.db", "old.db")
        try check(fresh, try Database(path: path("old.db"), configuration: .init(readOnly: true)))
        try writePipeline("old", db: "old.db", from: "2024-01-01", to: "2028-01-01")
        let (status, _, stderr) = try calpipe(["run", "old.json", "-q"])
        XCTAssertEqual(status, 0, stderr)
        XCTAssertEqual(try Database(path: path("old.db"), configuration: .init(readOnly: true)).userVersion, SQLiteSchema.currentVersion)
        // The same rows, the same ids (each occurrence renumbered to its first day entry's id, as a fresh load numbers it).
        let upgraded = try readerRows("old.db")
        for (table, rows) in fresh.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(upgraded[table], rows, "\(table) after the upgrade")
        }
        // `calpipe query` answers the same, as a table and as the days document.
        for arguments in [["--from", "2026-01-01", "--to", "2027-01-01", "--width", "200"], ["--from", "2025-10-20", "--to", "2025-11-10", "--json"]] {
            let a = try calpipe(["query", "fresh.db"] + arguments), b = try calpipe(["query", "old.db"] + arguments)
            XCTAssertEqual(a.0, 0, a.2)
            XCTAssertGreaterThan(a.1.count, 1_000)
            XCTAssertEqual(b.1, a.1, "calpipe query \(arguments)")
        }
        // Both files go on alike: a moved window (days dropped, days gained, occurrences re-expanded) changes both the same
        // way. (The fresh file first gets a run of its own where the old one had its upgrade, so that run ids match.)
        XCTAssertEqual(try calpipe(["run", "fresh.json", "-q"]).0, 0)
        for name in ["fresh", "old"] {
            try writePipeline(name + "-moved", db: name + ".db", from: "2025-06-01", to: "2028-06-01")
            let (status, _, stderr) = try calpipe(["run", name + "-moved.json", "-q"])
            XCTAssertEqual(status, 0, stderr)
        }
        let movedFresh = try readerRows("fresh.db")
        XCTAssertEqual(try readerRows("old.db"), movedFresh)
        XCTAssertNotEqual(movedFresh["day_entries"], fresh["day_entries"])
    }

    /// What an older calpipe stored that the view cannot compute (a sort key of another form, a local time SQLite's
    /// date functions do not write) is kept as text by the upgrade and shown as it was.
    func testUpgradeToVersion11KeepsValuesItCannotCompute() throws {
        try runSink(path: path("a.db"), events: [trip(2)])
        try writeVersion10(of: "a.db", to: "v10.db")
        let db = try Database(path: path("v10.db"))
        try db.execute("UPDATE day_entries SET sort_key = 'x' || sort_key, start_local = '10000-01-01T00:00:00' WHERE part = 2")
        let before = try db.rows("SELECT * FROM day_entries ORDER BY id")
        try db.beginTransaction(.immediate)
        XCTAssertEqual(try SQLiteSchema.migrate(db), 10)
        try db.commit()
        XCTAssertEqual(try db.rows("SELECT * FROM day_entries ORDER BY id"), before)
        XCTAssertEqual(try db.rows("SELECT part, start_local_text, end_local_text, sort_key_text IS NOT NULL FROM day_rows ORDER BY id"), [
            [1, .null, .null, 0], [2, "10000-01-01T00:00:00", .null, 1],
        ])
        XCTAssertEqual(try db.rows("PRAGMA foreign_key_check"), [])
    }

    private let trip = { (end: Int) in event("trip@x", "Trip", at(2026, 11, 29, 10), at(2026, 12, end, 12)) }

    /// The occurrences view of `file` without ids: uid, instance and the occurrence's values.
    private func occurrences(_ file: String) throws -> [[SQLiteValue]] {
        try Database(path: path(file), configuration: .init(readOnly: true)).rows("""
            SELECT e.uid, o.instance, o.all_day, o.start_utc, o.end_utc, o.start_local, o.end_local, o.removed_run
            FROM occurrences o JOIN events e ON e.id = o.event_id ORDER BY 1, 2
            """)
    }

    func testAnOccurrenceFollowsItsEventOnDaysOutsideTheWindow() throws {
        // A trip from 29 November to 2 December: the window ends with November, so two day entries carry it.
        try runSink(path: path("a.db"), events: [trip(2)])
        XCTAssertEqual(try occurrences("a.db"), [["trip@x", "", 0, 1_795_942_800, 1_796_209_200, "2026-11-29T10:00:00", "2026-12-02T12:00:00", .null]])
        let id = try Database(path: path("a.db")).rows("SELECT id FROM occurrences")
        // The window moves past 29 November and the trip grows by a day: its first day entry stays, outside the window,
        // and carries the new end like the others.
        let december = Window(from: CivilDate(year: 2026, month: 11, day: 30), to: CivilDate(year: 2027, month: 1, day: 1))
        try runSink(path: path("a.db"), events: [trip(3)], window: december)
        try runSink(path: path("b.db"), events: [trip(3)], window: december)
        XCTAssertEqual(try occurrences("a.db"), try occurrences("b.db"))
        XCTAssertEqual(try occurrences("a.db").first?[4], 1_796_295_600)
        let db = try Database(path: path("a.db"))
        XCTAssertEqual(try db.rows("SELECT day, part, parts FROM day_entries ORDER BY day"), [
            ["2026-11-29", 1, 4], ["2026-11-30", 2, 5], ["2026-12-01", 3, 5], ["2026-12-02", 4, 5], ["2026-12-03", 5, 5],
        ])
        XCTAssertEqual(try db.rows("SELECT id FROM occurrences"), id, "the occurrence keeps its id")
        XCTAssertEqual(try db.scalarInt("SELECT count(DISTINCT occurrence_id) FROM day_entries"), 1)
        XCTAssertEqual(try db.rows("PRAGMA foreign_key_check"), [])
    }

    func testKeepRemovedMarksAnOccurrenceAndUnmarksItWhenItComesBack() throws {
        let weekly = [trip(2), event("standup@x", "Standup", at(2026, 11, 10, 9), at(2026, 11, 10, 10))]
        try runSink(path: path("k.db"), events: weekly, keepRemoved: true)
        let before = try occurrences("k.db")
        try runSink(path: path("k.db"), events: [weekly[1]], keepRemoved: true)
        XCTAssertEqual(try occurrences("k.db").map { $0[7] }, [.null, 2], "the trip's occurrence is marked by run 2")
        XCTAssertEqual(try agenda(path("k.db")).map { $0[1] }, ["Standup"])
        try runSink(path: path("k.db"), events: weekly, keepRemoved: true)
        XCTAssertEqual(try occurrences("k.db"), before)
        XCTAssertEqual(try agenda(path("k.db")).map { $0[1] }, ["Standup", "Trip", "Trip"])
    }
}
