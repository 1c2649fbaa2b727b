@testable import Exporters
import Pipeline
import XCTest

final class SQLiteRowEncodingTests: XCTestCase {
    /// The fast formatters write exactly what the model's own ISO properties write.
    func testFastISOFormattersMatchTheModel() {
        var seconds: Int64 = -62_167_219_200 // 0000-01-01T00:00:00
        let end: Int64 = 253_402_300_799      // 9999-12-31T23:59:59
        var checked = 0
        while seconds <= end {
            let t = CivilDateTime(secondsSinceEpoch: seconds)
            XCTAssertEqual(SQLiteRowEncoding.isoLocal(t), t.iso8601)
            XCTAssertEqual(SQLiteRowEncoding.isoDate(t.date), t.date.iso8601)
            seconds += 7_777_777 + Int64(checked % 86_400)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 40_000)
        XCTAssertEqual(SQLiteRowEncoding.isoLocal(CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 5, second: 9)), "2026-03-29T02:05:09")
    }

    /// Local time with offset in one buffer: the same text as `isoLocal` + `Zone.offsetText`, for whole-hour,
    /// half-hour, negative and seconds-precision (LMT) offsets, and the fallback outside years 0-9999.
    func testFastISOWithOffsetMatchesTheModel() {
        let times = [CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 5, second: 9),
                     CivilDateTime(secondsSinceEpoch: -62_167_219_200), CivilDateTime(secondsSinceEpoch: 253_402_300_799),
                     CivilDateTime(year: 10_000, month: 1, day: 1, hour: 0, minute: 0, second: 0)]
        for t in times {
            for offset in [0, 3600, -3600, 19_800, -12_600, 50_400, -43_200, 3_208, -17_762, 59] {
                XCTAssertEqual(SQLiteRowEncoding.isoLocal(t, offset: offset), t.iso8601 + Zone.offsetText(offset))
            }
        }
        XCTAssertEqual(SQLiteRowEncoding.isoLocal(times[0], offset: -17_762), "2026-03-29T02:05:09-04:56:02")
    }

    func testFastEventTimeTextMatchesTheModel() {
        let berlin = Zone.system(identifier: "Europe/Berlin")!
        let kolkata = Zone.system(identifier: "Asia/Kolkata")!
        let local = CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)
        let times: [EventTime] = [
            .date(CivilDate(year: 2026, month: 11, day: 1)), .utc(1_794_301_200), .floating(local),
            .zoned(local, berlin), .zoned(CivilDateTime(year: 2026, month: 7, day: 1, hour: 9), berlin), .zoned(local, kolkata),
        ]
        for t in times {
            XCTAssertEqual(SQLiteRowEncoding.iso(t, startUTC: nil), t.iso8601)
            XCTAssertEqual(SQLiteRowEncoding.iso(t, startUTC: t.utcSeconds(in: .utc)), t.iso8601)
        }
        XCTAssertEqual(SQLiteRowEncoding.iso(times[4], startUTC: nil), "2026-07-01T09:00:00+02:00")
        XCTAssertEqual(SQLiteRowEncoding.iso(times[5], startUTC: nil), "2026-03-29T02:30:00+05:30")
    }

    func testSortKeyOrdersAllDayFirstThenByStart() {
        let zone = Zone.utc
        func entry(_ allDay: Bool, _ start: Int64) -> DayEntry {
            let e = Event(uid: "u", start: .utc(start))
            return DayEntry(occurrence: Occurrence(single: e), day: CivilDate(daysSinceEpoch: 0), part: 1, parts: 1, allDay: allDay,
                            start: zone.local(fromUTC: start), end: zone.local(fromUTC: start), startUTC: start, endUTC: start)
        }
        XCTAssertEqual(SQLiteRowEncoding.sortKey(entry(false, 0)), "1062167219200")
        XCTAssertEqual(SQLiteRowEncoding.sortKey(entry(true, 1_794_438_000)), "0063961657200")
        let keys = [entry(true, 5_000), entry(false, -1_000_000_000), entry(false, 9), entry(false, 10), entry(false, 2_000_000_000)].map(SQLiteRowEncoding.sortKey)
        XCTAssertEqual(keys, keys.sorted())
    }

    /// The byte-level JSON of the JSON columns is exactly what JSONWriter writes for the same values: escapes
    /// (quote, backslash, newline, CR, tab, other control characters), non-ASCII text, nesting, empty lists,
    /// optional members, sorted keys.
    func testJSONColumnsMatchJSONWriter() {
        let tricky = "a\"b\\c\nd\re\tf\u{01}\u{1F}g\u{7F} Grüße 東京 🎉 ;,:"
        let parameters = [Parameter(name: "X-TRICKY", values: [tricky, ""]), Parameter(name: "RSVP", values: ["TRUE"]),
                          Parameter(name: "EMPTY", values: [])]
        let properties = [RawProperty(name: "X-A", parameters: parameters, value: tricky), RawProperty(name: "DTSTAMP", parameters: [], value: "")]
        let alarm = RawComponent(name: "VALARM", properties: properties,
                                 components: [RawComponent(name: "X-INNER", properties: [], components: [])])
        let writer = JSONWriter(pretty: false)
        func text(_ body: (inout SQLiteJSONText) -> Void) -> String {
            var json = SQLiteJSONText()
            json.reset()
            body(&json)
            return json.string
        }
        XCTAssertEqual(text { $0.parameters(parameters) }, writer.string(SQLiteRowEncoding.parametersJSON(parameters)))
        XCTAssertEqual(text { $0.parameters([]) }, "[]")
        XCTAssertEqual(text { $0.properties(properties) }, writer.string(.array(properties.map(SQLiteRowEncoding.propertyJSON))))
        XCTAssertEqual(text { $0.components([alarm, alarm]) }, writer.string(.array([alarm, alarm].map(SQLiteRowEncoding.componentJSON))))
        XCTAssertEqual(text { $0.strings([tricky, "b"]) }, writer.string(.array([tricky, "b"].map(JSONValue.string))))
        let fields = ["SUMMARY": parameters, "LOCATION": [parameters[1]], "DESCRIPTION": []]
        XCTAssertEqual(text { $0.fieldParameters(fields) },
                       writer.string(.object(JSONObject(fields.sorted { $0.key < $1.key }.map { ($0.key, SQLiteRowEncoding.parametersJSON($0.value)) }))))
        let metadata = ["source": "team", "etag": tricky, "b": "2", "a": ""]
        XCTAssertEqual(text { $0.metadata(metadata) }, SQLiteRowEncoding.metadataJSON(metadata).text)
        XCTAssertEqual(text { $0.quoted("\u{01}") }, "\"\\u0001\"")
    }
}
