import CalSQLite
@testable import Exporters
import Foundation
import Pipeline
import XCTest

/// Schema 12 stores an occurrence's instance as an integer (`SQLiteRowEncoding.instanceKey`) and the views compute its
/// text (`SQLiteSchema.instanceText`): for every form `iso` writes, SQLite gives back exactly that text, and a text the
/// key cannot stand for is kept.
final class SQLiteInstanceKeyTests: XCTestCase {
    private static func zone(_ identifier: String) -> Zone { Zone.system(identifier: identifier)! }

    /// Every form of RECURRENCE-ID: none, date, UTC, floating, zoned east and west of UTC with whole, half and
    /// three-quarter hours, the furthest offsets, both sides of a DST change, and a wall-clock time in a DST gap.
    private static let computable: [EventTime?] = [
        nil,
        .date(CivilDate(year: 2026, month: 3, day: 29)),
        .date(CivilDate(year: 1, month: 1, day: 1)),
        .utc(CivilDateTime(year: 2026, month: 11, day: 10, hour: 9, minute: 30).secondsSinceEpoch),
        .utc(CivilDateTime(year: 1960, month: 2, day: 29, hour: 23, minute: 59, second: 59).secondsSinceEpoch),
        .floating(CivilDateTime(year: 2026, month: 12, day: 31, hour: 23, minute: 45)),
        .floating(CivilDateTime(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59)),
        .zoned(CivilDateTime(year: 2026, month: 1, day: 15, hour: 9), zone("Europe/Berlin")),
        .zoned(CivilDateTime(year: 2026, month: 7, day: 15, hour: 9), zone("Europe/Berlin")),
        .zoned(CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30), zone("Europe/Berlin")),
        .zoned(CivilDateTime(year: 2026, month: 11, day: 1, hour: 1, minute: 30), zone("America/New_York")),
        .zoned(CivilDateTime(year: 2026, month: 6, day: 1, hour: 8), zone("America/St_Johns")),
        .zoned(CivilDateTime(year: 2026, month: 6, day: 1, hour: 8), zone("Asia/Kolkata")),
        .zoned(CivilDateTime(year: 2026, month: 6, day: 1, hour: 8), zone("Asia/Kathmandu")),
        .zoned(CivilDateTime(year: 2026, month: 6, day: 1, hour: 0), zone("Pacific/Kiritimati")),
        .zoned(CivilDateTime(year: 2026, month: 6, day: 1, hour: 0), zone("Pacific/Pago_Pago")),
        .zoned(CivilDateTime(year: 2026, month: 6, day: 1, hour: 0), zone("UTC")),
    ]

    func testSQLiteGivesBackTheTextOfEveryKey() throws {
        let db = try Database(path: ":memory:")
        let decode = try db.prepare("SELECT \(SQLiteSchema.instanceText("?1"))")
        var keys = Set<Int64>()
        for time in Self.computable {
            let text = time.map { SQLiteRowEncoding.iso($0, startUTC: nil) } ?? ""
            let instance = SQLiteRowEncoding.instanceKey(time)
            XCTAssertNil(instance.text, text)
            try decode.bind(instance.key, at: 1)
            XCTAssertTrue(try decode.step())
            XCTAssertEqual(decode.text(at: 0), text)
            try decode.reset()
            XCTAssertTrue(keys.insert(instance.key).inserted, "two instances, one key: \(text)")
        }
        XCTAssertTrue(keys.contains(3), "a single event's instance")
    }

    /// An offset with seconds (Amsterdam's +00:19:32 before 1937, as a VTIMEZONE may give it) and a year past 9999 keep
    /// their text; the key is a hash of it.
    func testATextTheKeyCannotGiveIsKept() throws {
        let amsterdamTime = Zone(identifier: "Europe/Amsterdam", transitions: [], offsets: [19 * 60 + 32])
        let amsterdam = EventTime.zoned(CivilDateTime(year: 1930, month: 6, day: 1, hour: 9), amsterdamTime)
        let far = EventTime.floating(CivilDateTime(year: 10_000, month: 1, day: 1))
        for time in [amsterdam, far] {
            let text = SQLiteRowEncoding.iso(time, startUTC: nil)
            let instance = SQLiteRowEncoding.instanceKey(time)
            XCTAssertEqual(instance.text, text)
            XCTAssertEqual(instance.key & 4095, 4095)
            XCTAssertEqual(SQLiteRowEncoding.instanceKey(time), instance, "the same key on every run")
        }
        XCTAssertEqual(SQLiteRowEncoding.iso(amsterdam, startUTC: nil), "1930-06-01T09:00:00+00:19:32")
        XCTAssertNotEqual(SQLiteRowEncoding.instanceKey(amsterdam).key, SQLiteRowEncoding.instanceKey(far).key)
    }

    /// Through the sink: an override whose RECURRENCE-ID the key cannot give back is stored with its text, the views
    /// show that text, and a re-run finds the rows by the same key (nothing changes).
    func testAnInstanceWithItsTextKeptIsFoundAgain() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("a.db").path
        let lmt = Zone(identifier: "Europe/Amsterdam", transitions: [], offsets: [19 * 60 + 32])
        let moved = event("series@x", "Moved", at(2026, 11, 10, 11), at(2026, 11, 10, 12)) {
            $0.recurrenceID = RecurrenceID(time: .zoned(CivilDateTime(year: 2026, month: 11, day: 10, hour: 9), lmt))
        }
        let plain = event("one@x", "One", at(2026, 11, 11, 9), at(2026, 11, 11, 10))
        try runSink(path: path, events: [moved, plain])
        let db = try Database(path: path, configuration: .init(readOnly: true))
        XCTAssertEqual(try db.rows("SELECT instance FROM occurrences ORDER BY id"), [["2026-11-10T09:00:00+00:19:32"], [""]])
        XCTAssertEqual(try db.rows("SELECT instance FROM day_entries ORDER BY id"), [["2026-11-10T09:00:00+00:19:32"], [""]])
        XCTAssertEqual(try db.rows("SELECT instance_text, instance_key & 4095 FROM day_rows ORDER BY id"), [
            ["2026-11-10T09:00:00+00:19:32", 4095], [.null, 3],
        ])
        let before = try dataDump(path)
        try runSink(path: path, events: [moved, plain])
        XCTAssertEqual(try dataDump(path), before)
    }
}
