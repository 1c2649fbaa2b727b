import Foundation
@testable import Exporters
import Importers
import XCTest
@testable import Pipeline

/// The JSON sink writes bytes (`JSONBytes`) instead of `JSONValue` trees through `JSONWriter`: for every
/// value the bytes must be exactly what `JSONWriter` writes for `EventJSON`'s tree, compact and pretty, at
/// the indent levels the sink uses. Compared on the ICS corpus (real feeds: folded UTF-8, escaped text,
/// RFC 6868 parameters, odd offsets, geo, attendees, recurrence data) and on events made to be awkward.
final class JSONBytesTests: XCTestCase {
    typealias T = TestSupport

    /// Collects everything a pipeline produces.
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    private final class Collector: Sink, @unchecked Sendable {
        var events: [Event] = []
        var occurrences: [Occurrence] = []
        var days: [DayEntry] = []
        var needs: BatchContent { [.events, .occurrences, .days] }
        var label: String { "collector" }
        func open(context: RunContext) throws {}
        func write(_ batch: Batch, context: RunContext) throws {
            events += batch.events
            occurrences += batch.effectiveOccurrences
            days += batch.days
        }
        func commit(context: RunContext) throws -> Int { days.count }
        func abort(context: RunContext) {}
    }

    /// The corpus read (`expand`: expanded and split in a four-year window) into a collector.
    private func corpus(zone: String, expand: Bool) throws -> Collector {
        let folder = T.repositoryRoot.appendingPathComponent("Tests/Fixtures/ics/corpus")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".ics") }.sorted()
        XCTAssertGreaterThan(files.count, 20)
        let sources = files.map { f -> ICSSource in
            let path = folder.appendingPathComponent(f).path
            return ICSSource(input: InputSpec(location: .path(path, written: f)))
        }
        let collector = Collector()
        let context = T.context(zone: zone, window: Window(from: T.date(2024, 1, 1), to: T.date(2028, 1, 1)))
        try Runner().run(PipelineDefinition(environment: context.environment, sources: sources, stages: expand ? [ExpandStage(), SplitStage()] : [],
                                            sinks: [collector]), context: context)
        return collector
    }

    private func reference(_ value: JSONValue, pretty: Bool, level: Int) -> String {
        let out = JSONBytes(pretty: pretty)
        out.value(value, level: level)
        return out.string
    }

    private func rendered(pretty: Bool, _ write: (JSONBytes) -> Void) -> String {
        let bytes = JSONBytes(pretty: pretty, capacity: 16)
        write(bytes)
        return String(decoding: bytes.buffer, as: UTF8.self)
    }

    func testCorpusEventsOccurrencesAndDaysAreWrittenAsJSONWriterWritesThem() throws {
        for zoneName in ["UTC", "Europe/Berlin", "Asia/Kathmandu"] {
            let c = try corpus(zone: zoneName, expand: true)
            c.events = try corpus(zone: zoneName, expand: false).events
            let zone = T.zone(zoneName)
            XCTAssertGreaterThan(c.events.count, 50)
            XCTAssertGreaterThan(c.occurrences.count, 100)
            XCTAssertGreaterThan(c.days.count, 100)
            for pretty in [false, true] {
                for level in [0, 1] {
                    for e in c.events {
                        XCTAssertEqual(rendered(pretty: pretty) { $0.event(e, level: level) }, reference(EventJSON.event(e), pretty: pretty, level: level), e.uid)
                    }
                    for o in c.occurrences {
                        XCTAssertEqual(rendered(pretty: pretty) { $0.occurrence(o, zone: zone, level: level) },
                                       reference(EventJSON.occurrence(o, zone: zone), pretty: pretty, level: level), o.event.uid)
                    }
                }
                for d in c.days {
                    XCTAssertEqual(rendered(pretty: pretty) { $0.dayEntry(d, zone: zone, level: 4, initials: AttendeeInitials()) },
                                   reference(EventJSON.dayEntry(d, zone: zone), pretty: pretty, level: 4), "\(d.event.uid) \(d.day.iso8601)")
                }
            }
        }
    }

    /// Every field, present and absent; strings with quotes, backslashes, every control character, DEL,
    /// non-ASCII and empty; numbers with fractions; forecasts; recurrence data.
    private func awkwardEvents() throws -> [Event] {
        let berlin = T.zone("Europe/Berlin")
        let controls = String(decoding: (0..<0x20).map { UInt8($0) } + [0x7F], as: UTF8.self)
        var full = Event(uid: "q\"uo\\te\u{0}", start: .zoned(T.local(2026, 3, 29, 1, 30), berlin),
                         endSpec: .end(.zoned(T.local(2026, 3, 30, 4), T.zone("America/New_York"))), title: "Tab\there \"quoted\" \\ back\nslash")
        full.description = controls
        full.location = "Zürich – 会議室 📅"
        full.coordinate = Coordinate(latitude: 47.376_887, longitude: -8.541_694)
        full.organizer = Attendee(name: "", email: "o@example.org")
        full.attendees = [Attendee(), Attendee(name: "Ann \"A\"", email: "ann@example.org", role: "CHAIR", status: "ACCEPTED"),
                          Attendee(status: "NEEDS-ACTION")]
        full.categories = ["", "Ünïcödé", "a,b"]
        full.color = ""
        full.url = "https://example.org/?q=a\\b"
        full.status = "TENTATIVE\u{1}"
        full.recurrence = Recurrence(rules: [try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=3"), try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=MO,WE")],
                                     exceptionRules: [try RecurrenceRule(parsing: "FREQ=MONTHLY")],
                                     dates: [.time(.date(T.date(2026, 4, 1))), .period(start: .utc(1_775_000_000), end: .utc(1_775_003_600))],
                                     exceptionDates: [.floating(T.local(2026, 4, 2, 9)), .utc(-86_401)])
        full.recurrenceID = RecurrenceID(time: .zoned(T.local(2026, 3, 29, 1, 30), berlin), thisAndFuture: true)
        full.otherProperties = [RawProperty(name: "X-EMPTY", value: ""),
                                RawProperty(name: "X-P", parameters: [Parameter(name: "A", values: ["1", "2"]), Parameter(name: "B", values: []),
                                                                       Parameter("C", "\"q\""), Parameter("A", "again")], value: "v\\\n")]

        var bare = Event(uid: "", start: .date(T.date(2026, 2, 28)))
        bare.status = "ÜBERPRÜFT"
        var spanning = Event(uid: "span", start: .utc(1_790_000_000), endSpec: .duration(CalDuration(days: 2, seconds: 3_661)), title: "")
        spanning.attendees = [Attendee(name: "only name")]
        let floating = Event(uid: "floating", start: .floating(T.local(2026, 10, 25, 2, 30)), endSpec: .end(.floating(T.local(2026, 10, 25, 3))))
        let early = Event(uid: "year 12", start: .date(CivilDate(year: 12, month: 1, day: 1)), endSpec: .end(.date(CivilDate(year: 12, month: 1, day: 3))))
        let late = Event(uid: "year 12026", start: .utc(CivilDateTime(year: 12_026, month: 1, day: 1, hour: 23).secondsSinceEpoch),
                         endSpec: .duration(CalDuration(seconds: 7_200)))
        return [full, bare, spanning, floating, early, late]
    }

    func testAwkwardEventsAreWrittenAsJSONWriterWritesThem() throws {
        let zone = T.zone("Europe/Berlin")
        let events = try awkwardEvents()
        let context = T.context(zone: "Europe/Berlin", window: nil)
        for e in events {
            let occurrence = Occurrence(single: e)
            var days = try SplitStage().process(Batch(occurrences: [occurrence], content: .occurrences), context: context).days
            XCTAssertFalse(days.isEmpty, e.uid)
            // Forecasts: missing, and present with empty and fractional values.
            days[0].forecast = .missing(reason: "no \"forecast\"\n")
            if days.count > 1 {
                days[1].forecast = .forecast(DailyForecast(weatherCode: 3, summary: "Überwiegend bewölkt", temperatureMax: 21.5, temperatureMin: -0.25,
                                                           precipitationProbability: 40, precipitationAmount: nil, windSpeedMax: 1e-7, provider: "open-meteo"),
                                             place: Coordinate(latitude: 52.52, longitude: 13.405))
            }
            for pretty in [false, true] {
                for level in [0, 1, 4] {
                    XCTAssertEqual(rendered(pretty: pretty) { $0.event(e, level: level) }, reference(EventJSON.event(e), pretty: pretty, level: level), e.uid)
                    XCTAssertEqual(rendered(pretty: pretty) { $0.occurrence(occurrence, zone: zone, level: level) },
                                   reference(EventJSON.occurrence(occurrence, zone: zone), pretty: pretty, level: level), e.uid)
                    for d in days {
                        XCTAssertEqual(rendered(pretty: pretty) { $0.dayEntry(d, zone: zone, level: level, initials: AttendeeInitials()) },
                                       reference(EventJSON.dayEntry(d, zone: zone), pretty: pretty, level: level), "\(e.uid) \(d.day.iso8601)")
                    }
                }
            }
        }
        // The escapes themselves: \n \r \t, other controls as \u00xx (lowercase hex), DEL as is.
        let full = rendered(pretty: false) { $0.event(events[0], level: 0) }
        XCTAssertTrue(full.contains(#""description":"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\t\n\u000b\u000c\r\u000e"#))
        XCTAssertTrue(full.contains("\\u001f\u{7F}\""))
        XCTAssertTrue(full.contains(#""title":"Tab\there \"quoted\" \\ back\nslash""#))
        XCTAssertTrue(full.contains(#""status":"tentative\u0001""#))
        XCTAssertTrue(rendered(pretty: false) { $0.event(events[1], level: 0) }.contains(#""status":"überprüft""#))
    }

    /// The escaper tests sixteen bytes at a time: a byte to escape at every position of strings around that
    /// width (and in long ones) is escaped exactly as a byte-by-byte reading escapes it, and reads back.
    func testEscapingFindsEveryByteToEscapeAtEveryPosition() throws {
        func reference(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            for u in bytes {
                switch u {
                case 0x22: out += [0x5C, 0x22]
                case 0x5C: out += [0x5C, 0x5C]
                case 0x0A: out += [0x5C, 0x6E]
                case 0x0D: out += [0x5C, 0x72]
                case 0x09: out += [0x5C, 0x74]
                case 0..<0x20: out += Array(String(format: "\\u%04x", Int(u)).utf8)
                default: out.append(u)
                }
            }
            return out
        }
        let plain = Array("Zürich Übergabe 会議 ok".utf8)
        for length in [0, 1, 7, 15, 16, 17, 31, 32, 33, 47, 100] {
            let base = (0..<length).map { plain[$0 % plain.count] }
            for special: UInt8 in [0x00, 0x09, 0x0A, 0x1F, 0x22, 0x5C] {
                for at in 0..<max(length, 1) {
                    var bytes = base
                    if length > 0 { bytes[at] = special } else { bytes = [special] }
                    let plainResult = bytes.withUnsafeBufferPointer { JSONEscaping.isPlain($0) }
                    XCTAssertFalse(plainResult, "length \(length), byte \(special) at \(at)")
                    let escaped: [UInt8] = bytes.withUnsafeBufferPointer { b in
                        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: JSONEscaping.worstCase(b.count))
                        defer { out.deallocate() }
                        let end = JSONEscaping.escape(b, to: out)
                        return Array(UnsafeBufferPointer(start: out, count: end - out))
                    }
                    XCTAssertEqual(escaped, reference(bytes), "length \(length), byte \(special) at \(at)")
                }
            }
            XCTAssertTrue(base.withUnsafeBufferPointer { JSONEscaping.isPlain($0) }, "length \(length) has nothing to escape")
        }
        let long = String(repeating: "Grüße \"quoted\" and \\ back\tslash\n", count: 50)
        let written = JSONWriter().string(.string(long))
        let decoded = try JSONSerialization.jsonObject(with: Data(written.utf8), options: [.fragmentsAllowed]) as? String
        XCTAssertEqual(decoded, long)
    }

    /// Two bytes to escape anywhere in a string of 40 (across the 16- and 8-byte blocks the escaper stores whole),
    /// quoted by `JSONBytes` as JSONSerialization reads it back: the bytes stored past an escape are overwritten.
    func testEscapingTwoBytesAnywhereInOneString() throws {
        let plain = Array("Zürich Übergabe 会議 ok, and some more text".utf8)
        for special: (UInt8, UInt8) in [(0x22, 0x0A), (0x5C, 0x01), (0x09, 0x22)] {
            for a in 0..<40 {
                for b in a..<40 {
                    var bytes = Array(plain[0..<40])
                    bytes[a] = special.0
                    bytes[b] = special.1
                    let text = String(decoding: bytes, as: UTF8.self)
                    let written = rendered(pretty: false) { $0.quoted(text) }
                    let decoded = try JSONSerialization.jsonObject(with: Data(written.utf8), options: [.fragmentsAllowed]) as? String
                    XCTAssertEqual(decoded, text, "bytes \(special) at \(a) and \(b)")
                }
            }
        }
    }

    func testNumbersDatesAndOffsetsAsTheirStringForms() {
        for n in [0.0, -0.0, 1, -1, 0.1, -5.5, 1e15, -1e15, 999_999_999_999_999, 1e300, 2.5e-8, .nan, .infinity, -.infinity, 47.376_887] {
            XCTAssertEqual(rendered(pretty: false) { $0.number(n) }, JSONWriter.numberText(n), "\(n)")
        }
        for i: Int64 in [0, 7, -7, 60, 1_439, 999_999_999_999_999, -999_999_999_999_999, 1_000_000_000_000_000, .max, .min] {
            XCTAssertEqual(rendered(pretty: false) { $0.integer(i) }, JSONWriter.numberText(Double(i)), "\(i)")
        }
        for d in [CivilDate(year: 2026, month: 11, day: 22), CivilDate(year: 7, month: 2, day: 3), CivilDate(year: 0, month: 1, day: 1),
                  CivilDate(year: -44, month: 3, day: 15), CivilDate(year: 10_000, month: 12, day: 31)] {
            XCTAssertEqual(rendered(pretty: false) { $0.date(d) }, d.iso8601)
            let t = CivilDateTime(date: d, hour: 23, minute: 5, second: 9)
            XCTAssertEqual(rendered(pretty: false) { $0.dateTime(t) }, t.iso8601)
            XCTAssertEqual(rendered(pretty: false) { $0.shortTime(t) }, t.shortTimeText)
        }
        for offset in [0, 3_600, -18_000, 20_700, -12_600, 30, -3_601, 50 * 3_600, 100 * 3_600 + 59] {
            XCTAssertEqual(rendered(pretty: false) { $0.offset(offset) }, Zone.offsetText(offset), "\(offset)")
        }
    }

    /// The days spool compares titles and UIDs as bytes where that gives Swift's String order (NFC text),
    /// else as Strings: the order must be `DayEntry.agendaOrder`'s either way.
    func testSpoolTextOrderIsSwiftStringOrder() {
        let texts = ["", "a", "A", "ab", "b", "é", "e\u{301}", "e\u{301}\u{327}", "e\u{327}\u{301}", "ȩ\u{301}", "f", "Ω", "\u{2126}", "会議", "会",
                     "📅", "📅a", "か\u{3099}", "が", "Å", "\u{212B}", "A\u{30A}", "Straße", "Strasse", "z\u{0}", "z", "\u{1161}", "\u{1100}\u{1161}", "가"]
        for a in texts {
            for b in texts {
                let expected = a < b ? -1 : (b < a ? 1 : 0)
                var x = a, y = b
                let got = x.withUTF8 { xa in
                    y.withUTF8 { yb in DayEntrySpool.compareText(xa, DayEntrySpool.isByteOrdered(a), yb, DayEntrySpool.isByteOrdered(b)) }
                }
                XCTAssertEqual(got, expected, "\(Array(a.unicodeScalars)) vs \(Array(b.unicodeScalars))")
            }
        }
        XCTAssertTrue(DayEntrySpool.isByteOrdered("Grüße 会議 📅"))
        XCTAssertFalse(DayEntrySpool.isByteOrdered("e\u{301}"))
    }

    /// The spool's fast NFC check (inert starters learnt per scalar) answers as the standard library's full
    /// check: every scalar alone, starters followed by the characters that compose with them or reorder, the
    /// corpus's titles.
    func testFastNFCCheckAgreesWithTheStandardLibrary() throws {
        let table = NFCStarterTable()
        var texts: [String] = []
        for v in UInt32(0)..<0x3_0000 {
            if let s = Unicode.Scalar(v) { texts.append(String(s)) }
        }
        let starters = ["e", "A", "o", "\u{1100}", "\u{AC00}", "か", "\u{0B47}", "\u{0CC6}", "\u{0DD9}", "\u{1025}", "α", "ω", "и", "会", "📅"]
        var seconds = (0x300...0x36F).map { String(Unicode.Scalar(UInt32($0))!) }
        seconds += ["\u{0B3E}", "\u{0B57}", "\u{0CD5}", "\u{0CC2}", "\u{0DCA}", "\u{0DCF}", "\u{102E}", "\u{1161}", "\u{1175}", "\u{11A8}",
                    "\u{11C2}", "\u{3099}", "\u{309A}", "\u{0345}", "\u{0591}", "\u{05B0}", "a", "é"]
        for a in starters {
            for b in seconds {
                texts.append(a + b)
                for c in ["\u{301}", "\u{327}", "\u{11A8}", "x"] { texts.append(a + b + c) }
            }
        }
        texts += try corpus(zone: "UTC", expand: false).events.compactMap(\.title)
        var nonNFC = 0
        for t in texts {
            let expected = NFCStarterTable.fullCheck(t)
            if !expected { nonNFC += 1 }
            XCTAssertEqual(table.isNFC(t), expected, "\(t.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        XCTAssertGreaterThan(nonNFC, 1_000)
    }

    /// The events and occurrences documents: records joined as the sink did with JSONWriter (a comma, and
    /// when pretty a newline and two spaces, before each; "\n]\n" at the end), and NDJSON lines.
    func testEventAndOccurrenceDocumentsFrameTheRecords() throws {
        let dir = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let context = T.context(window: Window(from: T.date(2026, 1, 1), to: T.date(2027, 1, 1)))
        var weekly = Event(uid: "weekly", start: .zoned(T.local(2026, 10, 5, 9), T.zone("Europe/Berlin")), endSpec: .duration(CalDuration(seconds: 1_800)),
                           title: "Stand-up \"daily\" \\ 会議")
        weekly.recurrence = Recurrence(rules: [try RecurrenceRule(parsing: "FREQ=WEEKLY;COUNT=10")])
        let events = try awkwardEvents() + [weekly]
        for shape in [JSONExporter.Shape.events, .occurrences] {
            for (pretty, ndjson) in [(false, false), (true, false), (true, true)] {
                let path = dir.appendingPathComponent("out-\(shape)-\(pretty)-\(ndjson).json").path
                let sink = JSONExporter(path: path, shape: shape, ndjson: ndjson, pretty: pretty)
                try Runner().run(PipelineDefinition(environment: context.environment, sources: [StaticSource(events)],
                                                    stages: shape == .events ? [] : [ExpandStage()], sinks: [sink]), context: context)
                let written = try String(contentsOfFile: path, encoding: .utf8)
                let values: [JSONValue]
                if shape == .events {
                    values = events.map(EventJSON.event)
                } else {
                    let c = Collector()
                    try Runner().run(PipelineDefinition(environment: context.environment, sources: [StaticSource(events)], stages: [ExpandStage()], sinks: [c]),
                                     context: context)
                    values = c.occurrences.map { EventJSON.occurrence($0, zone: context.zone) }
                }
                XCTAssertGreaterThan(values.count, shape == .events ? 6 : 12)
                var expected = ""
                if ndjson {
                    for v in values { expected += JSONWriter(pretty: false).string(v) + "\n" }
                } else {
                    expected = "["
                    for (i, v) in values.enumerated() {
                        expected += (i == 0 ? "" : ",") + (pretty ? "\n  " : "")
                        expected += reference(v, pretty: pretty, level: 1)
                    }
                    expected += pretty ? "\n]\n" : "]\n"
                }
                XCTAssertEqual(written, expected, "\(shape) pretty \(pretty) ndjson \(ndjson)")
            }
        }
    }
}
