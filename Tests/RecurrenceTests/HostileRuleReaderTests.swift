import Foundation
import Importers
import Pipeline
import XCTest

/// Issue 16: rule values that crashed calpipe (a BY value of Int.min trapped in `abs()`, a huge INTERVAL
/// overflowed the engine) through every reader that carries a rule: iCalendar, xCal, jCal (all through the
/// iCalendar reader) and the JSON source's `rrule` string. Each run must end normally, either with the value
/// reported (rejected, or repaired with a warning) or with the rule expanded.
final class HostileRuleReaderTests: XCTestCase {
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    final class Capture: Sink, @unchecked Sendable {
        var occurrences: [Occurrence] = []
        var needs: BatchContent { .occurrences }
        var label: String { "capture" }
        func open(context: RunContext) throws {}
        func write(_ batch: Batch, context: RunContext) throws { occurrences.append(contentsOf: batch.occurrences) }
        func commit(context: RunContext) throws -> Int { occurrences.count }
        func abort(context: RunContext) {}
    }

    enum Format: CaseIterable { case ics, xcal, jcal, json }

    /// One event starting 2026-01-05 10:00 UTC with the rule given as parts, in `format`.
    static func document(_ format: Format, parts: [(String, String)]) -> String {
        switch format {
        case .ics:
            let rule = parts.map { "\($0.0)=\($0.1)" }.joined(separator: ";")
            return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:hostile\r\nDTSTAMP:20260101T000000Z\r\n"
                + "DTSTART:20260105T100000Z\r\nDURATION:PT1H\r\nRRULE:\(rule)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        case .xcal:
            let recur = parts.map { "<\($0.0.lowercased())>\($0.1)</\($0.0.lowercased())>" }.joined()
            return """
                <?xml version="1.0" encoding="utf-8"?>
                <icalendar xmlns="urn:ietf:params:xml:ns:icalendar-2.0"><vcalendar><properties>\
                <prodid><text>-//test//EN</text></prodid><version><text>2.0</text></version></properties><components><vevent>\
                <properties><uid><text>hostile</text></uid><dtstamp><date-time>2026-01-01T00:00:00Z</date-time></dtstamp>\
                <dtstart><date-time>2026-01-05T10:00:00Z</date-time></dtstart><duration><duration>PT1H</duration></duration>\
                <rrule><recur>\(recur)</recur></rrule></properties></vevent></components></vcalendar></icalendar>
                """
        case .jcal:
            // Numbers as JSON numbers (as jCal writes them), the rest as strings.
            let recur = parts.map { key, value in
                "\"\(key.lowercased())\": " + (Int(value) != nil || value.allSatisfy(\.isNumber) ? value : "\"\(value)\"")
            }.joined(separator: ", ")
            return """
                ["vcalendar", [["prodid", {}, "text", "-//test//EN"], ["version", {}, "text", "2.0"]], [["vevent", [\
                ["uid", {}, "text", "hostile"], ["dtstamp", {}, "date-time", "2026-01-01T00:00:00Z"], \
                ["dtstart", {}, "date-time", "2026-01-05T10:00:00Z"], ["duration", {}, "duration", "PT1H"], \
                ["rrule", {}, "recur", {\(recur)}]], []]]]
                """
        case .json:
            let rule = parts.map { "\($0.0)=\($0.1)" }.joined(separator: ";")
            return "[{\"uid\": \"hostile\", \"start\": \"2026-01-05T10:00:00Z\", \"duration\": \"PT1H\", \"rrule\": \"\(rule)\"}]"
        }
    }

    /// Reads `text` as `format` through the runner with the expand stage (window 2026-01-01 to 2026-03-01).
    func run(_ format: Format, _ text: String) throws -> (occurrences: [Occurrence], report: RunReport) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let name: String
        switch format {
        case .ics: name = "feed.ics"
        case .xcal: name = "feed.xml"
        case .jcal: name = "feed.jcal.json"
        case .json: name = "feed.json"
        }
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let input = InputSpec(location: .path(path, written: name))
        let source: EventSource
        switch format {
        case .ics: source = ICSSource(input: input)
        case .xcal: source = XCalSource(input: input)
        case .jcal: source = JCalSource(input: input)
        case .json: source = JSONImporter(input: input)
        }
        let environment = PipelineEnvironment(
            pipelineFile: "test.json", baseDirectory: folder, name: "hostile", zone: .utc,
            window: Window(from: CivilDate(year: 2026, month: 1, day: 1), to: CivilDate(year: 2026, month: 3, day: 1)),
            environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 1, day: 1))
        let context = RunContext(environment: environment, quiet: true)
        let capture = Capture()
        try Runner().run(PipelineDefinition(environment: environment, sources: [source], stages: [ExpandStage()], sinks: [capture]),
                         context: context)
        return (capture.occurrences, context.report)
    }

    func testIntMinInEveryByPartIsReportedInEveryReader() throws {
        let min = "-9223372036854775808"
        for format in Format.allCases {
            for part in ["BYSECOND", "BYMINUTE", "BYHOUR", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS"] {
                let (occurrences, report) = try run(format, Self.document(format, parts: [("FREQ", "YEARLY"), (part, min)]))
                // Rejections, warnings, or repairs (the ics reader keeps the event and reports a repair).
                let messages = report.rejections.map(\.reason) + report.warnings + report.repairs.map(\.description)
                XCTAssertTrue(messages.contains { $0.contains("\(part) value") && $0.contains("out of range") }, "\(format) \(part): \(messages)")
                // Rejected (strict readers) or kept without the rule: at most DTSTART.
                XCTAssertLessThanOrEqual(occurrences.count, 1, "\(format) \(part)")
            }
            let (occurrences, report) = try run(format, Self.document(format, parts: [("FREQ", "MONTHLY"), ("BYDAY", "\(min)MO")]))
            XCTAssertTrue((report.rejections.map(\.reason) + report.warnings + report.repairs.map(\.description)).contains { $0.contains("bad ordinal") },
                          "\(format) BYDAY")
            // Every reader keeps the event without the rule (a rule is never kept without a bad BY* part: it
            // would make days its author never meant): DTSTART alone.
            XCTAssertLessThanOrEqual(occurrences.count, 1, "\(format) BYDAY")
        }
    }

    func testHugeIntervalInEveryFrequencyAndReaderGivesDTSTARTAlone() throws {
        for format in Format.allCases {
            for frequency in RecurrenceRule.Frequency.allCases {
                for interval in ["9223372036854775807", "4611686018427387904"] {
                    let (occurrences, report) = try run(format, Self.document(format, parts: [("FREQ", frequency.rawValue), ("INTERVAL", interval)]))
                    XCTAssertEqual(report.rejections.map(\.reason), [], "\(format) \(frequency) \(interval)")
                    XCTAssertEqual(occurrences.map { $0.start }, [.utc(CivilDateTime(year: 2026, month: 1, day: 5, hour: 10).secondsSinceEpoch)],
                                   "\(format) \(frequency) \(interval)")
                }
            }
        }
    }

    /// The JSON source repairs leniently: the value is dropped with a warning naming the file, the path and
    /// the event, and the rule still expands.
    func testJSONSourceKeepsARepairableRuleAndSaysWhatItDropped() throws {
        let (occurrences, report) = try run(.json, Self.document(.json, parts: [("FREQ", "WEEKLY"), ("COUNT", "3"), ("UNTIL", "20260113T000000Z")]))
        XCTAssertEqual(report.rejections.map(\.reason), [])
        XCTAssertEqual(report.warnings, ["feed.json: [0].rrule: RRULE has both COUNT and UNTIL; kept both: the series ends at whichever comes first (event \"hostile\")"])
        XCTAssertEqual(occurrences.count, 2)  // 5 and 12 January: UNTIL ends it before COUNT would
    }
}
