import Foundation
import Pipeline
import XCTest

/// Compares the engine occurrence for occurrence with python-dateutil over the rules in
/// Tests/Fixtures/recurrence/dateutil-rrules.jsonl (made by scripts/rrule-oracle.py; see its header for the
/// format and how to widen it). Set RRULE_ORACLE_FIXTURE to a file path to run another generated set.
final class DateutilDifferentialTests: XCTestCase {
    struct Case {
        var line: Int
        var start: CivilDateTime
        var rule: String
        var from: CivilDateTime
        var to: CivilDateTime
        var startMatches: Bool
        var countTotal: Int
        var last: CivilDateTime?
        var instances: [CivilDateTime]
    }

    static func fixtureURL() -> URL {
        if let path = ProcessInfo.processInfo.environment["RRULE_ORACLE_FIXTURE"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/recurrence/dateutil-rrules.jsonl")
    }

    static func local(_ text: String) -> CivilDateTime {
        guard case .floating(let l)? = BasicDateText.parse(text) else { fatalError("fixture time \(text) is not a local date-time") }
        return l
    }

    static func loadCases() throws -> [Case] {
        let text = try String(contentsOf: fixtureURL(), encoding: .utf8)
        var cases: [Case] = []
        for (index, line) in text.split(separator: "\n").enumerated() where index > 0 {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let from = local(object["f"] as! String)
            var previous = from.secondsSinceEpoch
            var instances: [CivilDateTime] = []
            for delta in object["o"] as! [Int] {
                previous += Int64(delta)
                instances.append(CivilDateTime(secondsSinceEpoch: previous))
            }
            let last = object["l"] as! String
            cases.append(Case(line: index + 1, start: local(object["s"] as! String), rule: object["r"] as! String, from: from,
                              to: local(object["t"] as! String), startMatches: (object["m"] as! Int) == 1,
                              countTotal: object["n"] as! Int, last: last.isEmpty ? nil : local(last), instances: instances))
        }
        return cases
    }

    func describe(_ c: Case) -> String {
        "line \(c.line): DTSTART:\(c.start.basicFormat) RRULE:\(c.rule) window [\(c.from.basicFormat), \(c.to.basicFormat))"
    }

    func testFixtureIsLargeAndCoversEveryPart() throws {
        let cases = try Self.loadCases()
        XCTAssertGreaterThanOrEqual(cases.count, 2000)
        for part in ["FREQ=SECONDLY", "FREQ=MINUTELY", "FREQ=HOURLY", "FREQ=DAILY", "FREQ=WEEKLY", "FREQ=MONTHLY", "FREQ=YEARLY",
                     "INTERVAL=", "COUNT=", "UNTIL=", "WKST=", "BYSECOND=", "BYMINUTE=", "BYHOUR=", "BYDAY=", "BYMONTHDAY=-",
                     "BYMONTHDAY=", "BYYEARDAY=", "BYWEEKNO=", "BYMONTH=", "BYSETPOS="] {
            XCTAssertGreaterThan(cases.filter { $0.rule.contains(part) }.count, 20, "too few cases with \(part)")
        }
        XCTAssertGreaterThan(cases.filter { $0.start.date.year < 1991 }.count, 100, "too few far-past DTSTARTs")
        XCTAssertGreaterThan(cases.filter { $0.start.date.month == 2 && $0.start.date.day == 29 }.count, 20, "too few leap-day DTSTARTs")
        XCTAssertGreaterThan(cases.reduce(0) { $0 + $1.instances.count }, 20_000)
    }

    /// With `includeStart: false` the engine must give exactly dateutil's instances.
    func testMatchesDateutil() throws {
        var failures: [String] = []
        for c in try Self.loadCases() {
            let rule = try RecurrenceRule(parsing: c.rule)
            let result = rule.expand(start: c.start, from: c.from, to: c.to, includeStart: false, limit: 1_000_000)
            if result.starts != c.instances {
                failures.append(describe(c) + "\n  dateutil: " + c.instances.prefix(8).map(\.basicFormat).joined(separator: " ")
                                + "\n  calpipe:  " + result.starts.prefix(8).map(\.basicFormat).joined(separator: " "))
            }
        }
        XCTAssertEqual(failures.count, 0, failures.prefix(15).joined(separator: "\n"))
    }

    /// The RFC way (`includeStart: true`) differs from dateutil only where DTSTART does not match the rule:
    /// DTSTART is then the first instance, and with COUNT it takes one of the COUNT places (the last
    /// dateutil instance goes). Unless UNTIL lies before DTSTART: then there is no instance at all, as in
    /// dateutil (issue 30: Google writes such a rule when it splits a series at its first instance).
    func testDiffersFromDateutilOnlyByDTSTART() throws {
        var failures: [String] = []
        var differing = 0
        var untilBefore = 0
        for c in try Self.loadCases() {
            let rule = try RecurrenceRule(parsing: c.rule)
            var expected = c.instances
            var until: EventTime? = rule.untilWithCount
            if case .until(let t) = rule.end { until = t }
            let untilBeforeStart: Bool
            switch until {
            case .date(let d)?: untilBeforeStart = d < c.start.date
            case let t?: untilBeforeStart = t.localTime < c.start
            case nil: untilBeforeStart = false
            }
            if untilBeforeStart {
                untilBefore += 1
                XCTAssertEqual(c.instances, [], describe(c))
            }
            if !c.startMatches && !untilBeforeStart {
                differing += 1
                if case .count(let n) = rule.end, n > 0, c.countTotal == n, let last = c.last, expected.last == last {
                    expected.removeLast()
                }
                if c.start >= c.from && c.start < c.to { expected.insert(c.start, at: 0) }
            }
            let result = rule.expand(start: c.start, from: c.from, to: c.to, includeStart: true, limit: 1_000_000)
            if result.starts != expected {
                failures.append(describe(c) + "\n  expected: " + expected.prefix(8).map(\.basicFormat).joined(separator: " ")
                                + "\n  calpipe:  " + result.starts.prefix(8).map(\.basicFormat).joined(separator: " "))
            }
        }
        XCTAssertGreaterThan(differing, 100, "the fixture should have many DTSTARTs that do not match their rule")
        XCTAssertGreaterThan(untilBefore, 10, "the fixture should have rules whose UNTIL lies before DTSTART")
        XCTAssertEqual(failures.count, 0, failures.prefix(15).joined(separator: "\n"))
    }
}
