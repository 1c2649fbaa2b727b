import Foundation
import XCTest
import Importers
import Pipeline

/// `--strict` rejects every repair the readers make (issue 30, item 2): for each `RepairKind` a sample input
/// that needs exactly that repair is read by the real source twice, as a run would: by default the record is
/// kept and the repair reported with its kind (and nothing rejected); under strict nothing is repaired and
/// something is rejected, so the run fails. A kind without a sample fails `testEveryRepairKindHasASample`.
final class StrictRepairTests: XCTestCase {
    enum Format { case ics, json, xcal, jcal }

    struct Sample {
        var format: Format
        var bytes: [UInt8]
    }

    /// A VEVENT's lines in a calendar (CRLF line ends).
    static func calendar(_ event: [String], before: [String] = [], after: [String] = []) -> Sample {
        let lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calpipe//strict samples//EN"] + before
            + ["BEGIN:VEVENT", "UID:sample@example.com", "DTSTAMP:20260101T000000Z"] + event + ["END:VEVENT"] + after + ["END:VCALENDAR"]
        return Sample(format: .ics, bytes: Array((lines.joined(separator: "\r\n") + "\r\n").utf8))
    }

    static func raw(_ text: String) -> Sample { Sample(format: .ics, bytes: Array(text.utf8)) }

    static let start = "DTSTART:20260105T090000Z"

    static let samples: [RepairKind: Sample] = {
        var s: [RepairKind: Sample] = [:]
        s[.malformedLine] = calendar([start, "THIS LINE HAS NO COLON", "SUMMARY:x"])
        s[.malformedParameter] = calendar(["DTSTART;X_A=1:20260105T090000Z", "SUMMARY:x"])
        s[.invalidComponentName] = calendar([start, "BEGIN:VAL@RM", "ACTION:DISPLAY", "END:VAL@RM"])
        s[.nestingTooDeep] = calendar([start] + (1...20).map { "BEGIN:X-LEVEL\($0)" } + (1...20).reversed().map { "END:X-LEVEL\($0)" })
        s[.componentOutsideCalendar] = raw("BEGIN:VEVENT\r\nUID:bare@example.com\r\n\(start)\r\nEND:VEVENT\r\n")
        s[.contentOutsideCalendar] = raw(String(decoding: calendar([start]).bytes, as: UTF8.self) + "X-TRAILING-JUNK:1\r\n")
        s[.endWithoutBegin] = raw(String(decoding: calendar([start]).bytes, as: UTF8.self) + "END:VEVENT\r\n")
        s[.endMismatch] = raw("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a@example.com\r\n\(start)\r\nEND:VEVENTS\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        s[.unclosedComponent] = calendar([start, "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT5M"])
        s[.unclosedCalendar] = raw("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a@example.com\r\n\(start)\r\nEND:VEVENT\r\n")
        s[.bareCR] = raw("BEGIN:VCALENDAR\rVERSION:2.0\rBEGIN:VEVENT\rUID:a@example.com\r\(start)\rEND:VEVENT\rEND:VCALENDAR\r")
        var nul = calendar([start, "SUMMARY:tea\u{0}time"])
        s[.nulBytes] = nul
        nul = calendar([start, "SUMMARY:caf"])
        var latin1 = nul.bytes
        let summaryEnd = latin1.indices.first { i in latin1[i...].starts(with: Array("caf\r\n".utf8)) }! + 3
        latin1.insert(0xE9, at: summaryEnd)
        s[.invalidUTF8] = Sample(format: .ics, bytes: latin1)
        s[.missingUID] = raw("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\n\(start)\r\nSUMMARY:no uid\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        s[.emptyValue] = calendar([start, "DTEND:"])
        s[.endAndDuration] = calendar([start, "DTEND:20260105T100000Z", "DURATION:PT2H"])
        s[.unreadableEnd] = calendar([start, "DTEND:tomorrow"])
        s[.endBeforeStart] = calendar([start, "DTEND:20260105T080000Z"])
        s[.endKindMismatch] = calendar(["DTSTART;VALUE=DATE:20260105", "DTEND:20260106T100000Z"])
        s[.valueTypeMismatch] = calendar(["DTSTART;VALUE=DATE:20260105T090000Z"])
        s[.ruleRepaired] = calendar([start, "RRULE:FREQ=WEEKLY;COUNT=3;BYDAY=MO,XX"])
        s[.rulePartDropped] = calendar([start, "RRULE:FREQ=WEEKLY;UNTIL=20260331;COUNT=-1"])
        s[.ruleDropped] = calendar([start, "RRULE:"])
        s[.recurrenceValueDropped] = calendar([start, "RRULE:FREQ=DAILY;COUNT=3", "EXDATE:20260106T090000Z,someday"])
        s[.recurrenceIDKind] = calendar([start, "RRULE:FREQ=DAILY;COUNT=3"],
                                        after: ["BEGIN:VEVENT", "UID:sample@example.com", "RECURRENCE-ID;VALUE=DATE:20260106",
                                                "DTSTART:20260106T150000Z", "SUMMARY:moved", "END:VEVENT"])
        s[.methodInEvent] = calendar([start, "METHOD:PUBLISH"])
        s[.unknownZoneAsOffset] = Sample(format: .json, bytes: Array(#"""
            [{"uid": "z@example.com", "title": "x", "start": "2026-10-31T09:00:00", "starts_at": "2026-10-31T09:00:00-04:00", "timezone": "custom_America/New_York"}]
            """#.utf8))
        return s
    }()

    struct Outcome {
        var events = 0
        var repairs: [Repair] = []
        var rejections: [String] = []
        var warnings: [String] = []
    }

    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-strict-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Reads `sample` with its source, as a run does (`--strict` is the context's).
    func read(_ sample: Sample, strict: Bool, workers: Int = 0) throws -> Outcome {
        let name: String
        switch sample.format {
        case .ics: name = "sample.ics"
        case .json: name = "sample.json"
        case .xcal: name = "sample.xml"
        case .jcal: name = "sample.jcal.json"
        }
        let path = folder.appendingPathComponent(name).path
        try Data(sample.bytes).write(to: URL(fileURLWithPath: path))
        let environment = PipelineEnvironment(pipelineFile: "p.json", baseDirectory: folder, name: "strict", zone: .utc, window: nil,
                                              environment: [:], zones: testZones, today: CivilDate(year: 2026, month: 1, day: 1))
        let context = RunContext(environment: environment, strict: strict, quiet: true)
        let input = InputSpec(location: .path(path, written: "sample"))
        let source: EventSource
        switch sample.format {
        case .ics: source = ICSSource(input: input, workers: workers)
        case .json: source = JSONImporter(input: input)
        case .xcal: source = XCalSource(input: input)
        case .jcal: source = JCalSource(input: input)
        }
        var outcome = Outcome()
        try source.read(context: context) { outcome.events += $0.events.count }
        outcome.repairs = context.report.repairs
        outcome.rejections = context.report.rejections.map { "\($0)" }
        outcome.warnings = context.report.warnings
        return outcome
    }

    func testEveryRepairKindHasASample() {
        XCTAssertEqual(Set(Self.samples.keys), Set(RepairKind.allCases),
                       "missing: \(RepairKind.allCases.filter { Self.samples[$0] == nil }.map(\.rawValue))")
    }

    func testEveryRepairIsMadeByDefaultAndRejectedUnderStrict() throws {
        for kind in RepairKind.allCases {
            guard let sample = Self.samples[kind] else { continue }
            for workers in sample.format == .ics ? [0, 2] : [0] {
                let lenient = try read(sample, strict: false, workers: workers)
                XCTAssertGreaterThan(lenient.events, 0, "\(kind.rawValue): the record is kept")
                XCTAssertEqual(lenient.rejections, [], "\(kind.rawValue)")
                if sample.format == .ics {
                    XCTAssertEqual(Set(lenient.repairs.map(\.kind)), [kind], "\(kind.rawValue): \(lenient.repairs)")
                } else {
                    // The JSON and mapped XML sources say their repairs as warnings, with the field's path.
                    XCTAssertEqual(lenient.warnings.count, 1, "\(kind.rawValue): \(lenient.warnings)")
                }
                let strict = try read(sample, strict: true, workers: workers)
                XCTAssertEqual(strict.repairs, [], "\(kind.rawValue): nothing is repaired under strict")
                XCTAssertEqual(strict.warnings.filter { $0.hasPrefix("repaired") }, [], "\(kind.rawValue)")
                XCTAssertFalse(strict.rejections.isEmpty, "\(kind.rawValue): strict rejects")
            }
        }
    }

    /// xCal and jCal are read by the iCalendar reader: their repairs are the same, with the document's lines, and
    /// strict rejects them too (these sources did not pass strict on before).
    func testXCalAndJCalRepairsAreRejectedUnderStrict() throws {
        let jcal = Sample(format: .jcal, bytes: Array(#"""
            ["vcalendar", [["version", {}, "text", "2.0"]],
              [["vevent", [["uid", {}, "text", "j1@example.com"], ["dtstart", {}, "date-time", "2026-01-05T09:00:00Z"],
                           ["method", {}, "text", "PUBLISH"]], []]]]
            """#.utf8))
        let xcal = Sample(format: .xcal, bytes: Array("""
            <?xml version="1.0" encoding="utf-8"?>
            <icalendar xmlns="urn:ietf:params:xml:ns:icalendar-2.0">
             <vcalendar>
              <properties><version><text>2.0</text></version></properties>
              <components>
               <vevent>
                <properties>
                 <uid><text>x1@example.com</text></uid>
                 <dtstart><date-time>2026-01-05T09:00:00Z</date-time></dtstart>
                 <method><text>PUBLISH</text></method>
                </properties>
               </vevent>
              </components>
             </vcalendar>
            </icalendar>
            """.utf8))
        for sample in [jcal, xcal] {
            let lenient = try read(sample, strict: false)
            XCTAssertEqual(lenient.events, 1, "\(sample.format)")
            XCTAssertEqual(lenient.repairs.map(\.kind), [.methodInEvent], "\(sample.format)")
            XCTAssertEqual(lenient.repairs.first?.message, "METHOD inside VEVENT (a VCALENDAR property): dropped")
            let strict = try read(sample, strict: true)
            XCTAssertEqual(strict.events, 0, "\(sample.format)")
            XCTAssertEqual(strict.repairs, [], "\(sample.format)")
            XCTAssertEqual(strict.rejections.count, 1, "\(sample.format)")
            XCTAssertTrue(strict.rejections.first?.hasSuffix("METHOD inside VEVENT (a VCALENDAR property)") == true, "\(strict.rejections)")
        }
        // The repair names the document's line of the component (ICalFeed translates lines per component).
        XCTAssertEqual(try read(xcal, strict: false).repairs.first?.location.line, 6)
    }

    /// What the readers dropped with a warning that is no `RepairKind` (a component of no interest never closed,
    /// a calendar property that cannot be read) is data left out: said by default, rejected under strict.
    func testWarningsThatLeaveDataOutAreRejectedUnderStrict() throws {
        let unclosedX = Self.raw(String(decoding: Self.calendar([Self.start]).bytes, as: UTF8.self)
            .replacingOccurrences(of: "END:VCALENDAR\r\n", with: "BEGIN:X-THING\r\nX-A:1\r\nEND:VCALENDAR\r\n"))
        let badCalendarLine = Self.calendar([Self.start], before: ["X-WR-TIMEZONE;X-A=\"Europe/Berlin"])
        let jcal = Sample(format: .jcal, bytes: Array(#"""
            ["vcalendar", [["version", {}, "text", "2.0"], ["x-wr-timezone", {}, 5]],
              [["vevent", [["uid", {}, "text", "j1@example.com"], ["dtstart", {}, "date-time", "2026-01-05T09:00:00Z"]], []]]]
            """#.utf8))
        let xcal = Sample(format: .xcal, bytes: Array("""
            <?xml version="1.0" encoding="utf-8"?>
            <icalendar xmlns="urn:ietf:params:xml:ns:icalendar-2.0">
             <vcalendar>
              <properties><version><text>2.0</text></version><x-wr-timezone><parameters><tzid/></parameters><text>Europe/Berlin</text></x-wr-timezone></properties>
              <components>
               <vevent><properties><uid><text>x1@example.com</text></uid><dtstart><date-time>2026-01-05T09:00:00Z</date-time></dtstart></properties></vevent>
              </components>
             </vcalendar>
            </icalendar>
            """.utf8))
        let expected: [(Sample, String, String)] = [
            (unclosedX, "sample:9: BEGIN:X-THING has no END:X-THING: skipped to the end of the input", "sample:9: BEGIN:X-THING has no END:X-THING"),
            (badCalendarLine, "sample:4: malformed parameter (unterminated quoted value): the line is dropped",
             "sample:4: malformed parameter (unterminated quoted value)"),
            (jcal, "calendar property ignored", "calendar property"),
            (xcal, "calendar property ignored", "calendar property"),
        ]
        for (sample, said, rejected) in expected {
            let lenient = try read(sample, strict: false)
            XCTAssertEqual(lenient.events, 1, said)
            XCTAssertEqual(lenient.rejections, [], said)
            XCTAssertTrue((lenient.warnings + lenient.repairs.map(\.description)).contains { $0.contains(said) }, "\(said): \(lenient)")
            let strict = try read(sample, strict: true)
            // (the X-THING never closed swallows END:VCALENDAR too, which is rejected as well)
            XCTAssertTrue(strict.rejections.contains { $0.contains(rejected) }, "\(rejected): \(strict.rejections)")
            XCTAssertEqual(strict.warnings.filter { $0.contains("ignored") || $0.contains("skipped") }, [], rejected)
        }
    }

    /// The three the issue names, with their messages: kept and said by default, rejected under strict.
    func testEndNameMissingEndOfCalendarAndBadBytesAreRejectedUnderStrict() throws {
        let mismatch = try read(Self.samples[.endMismatch]!, strict: false)
        XCTAssertEqual(mismatch.repairs.map(\.description), ["sample:6: UID \"a@example.com\": END:VEVENTS does not match BEGIN:VEVENT at line 3: ignored"])
        XCTAssertEqual(try read(Self.samples[.endMismatch]!, strict: true).rejections, ["sample:6: END:VEVENTS does not match BEGIN:VEVENT at line 3"])
        let unclosed = try read(Self.samples[.unclosedCalendar]!, strict: false)
        XCTAssertEqual(unclosed.repairs.map(\.description), ["sample:1: BEGIN:VCALENDAR at line 1 has no END:VCALENDAR: closed at the end of the input"])
        XCTAssertEqual(try read(Self.samples[.unclosedCalendar]!, strict: true).rejections, ["sample:1: BEGIN:VCALENDAR at line 1 has no END:VCALENDAR"])
        let bytes = try read(Self.samples[.invalidUTF8]!, strict: false)
        XCTAssertEqual(bytes.repairs.map(\.description),
                       ["sample:8: text is not valid UTF-8: read as Windows-1252 (stray bytes in UTF-8 text become U+FFFD)"])
        XCTAssertEqual(try read(Self.samples[.invalidUTF8]!, strict: true).rejections, ["sample:8: text is not valid UTF-8"])
    }
}
