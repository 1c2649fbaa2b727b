import Foundation
import XCTest
@testable import Importers
import Pipeline

/// A malformed parameter costs that parameter, not the line (issue 30, "keep what other readers keep"): one
/// event per shape in `broken/12-malformed-parameters.ics`. libical keeps the property of most of them without
/// the bad parameter; its reading (`peers/12-malformed-parameters.libical.tsv`, made by scripts/peers/libical_diff.c,
/// see Tests/Fixtures/ics/peers/README.md) is the expected start where it read the event without error.
/// python icalendar drops every such line (and with it the DTSTART), so it is no peer here.
final class ICSMalformedParameterTests: XCTestCase {
    private static let file = "broken/12-malformed-parameters.ics"

    /// libical's start per UID (`E` lines; `X` lines, events libical marked with X-LIC-ERROR, have none).
    private func libicalStarts() throws -> [String: String] {
        let text = String(decoding: try Fixtures.bytes("peers/12-malformed-parameters.libical.tsv"), as: UTF8.self)
        var starts: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if fields[0] == "E" { starts[fields[1]] = fields[3] }
        }
        return starts
    }

    /// A start in libical_diff's form: D (date), U (instant), F (floating).
    private func shown(_ time: EventTime) -> String {
        switch time {
        case .date(let d): return "D" + d.basicFormat
        case .utc(let s): return "U\(s)"
        case .zoned(let local, let zone): return "U\(zone.utc(fromLocal: local))"
        case .floating(let local): return "F" + local.basicFormat
        }
    }

    private static let label = "12-malformed-parameters.ics"

    /// What was dropped from each event's line, by line: the messages users see.
    private static let repairs = [
        #"12-malformed-parameters.ics:7: UID "name-bad-character@example.com": malformed parameter "V%LUE=DATE" (the name is not letters, digits and "-"): the parameter is dropped"#,
        #"12-malformed-parameters.ics:13: UID "name-with-space@example.com": malformed parameter "TZ ID=Europe/Berlin" (the name is not letters, digits and "-"): the parameter is dropped"#,
        #"12-malformed-parameters.ics:19: UID "name-underscore-before-tzid@example.com": malformed parameter "X_A=1" (the name is not letters, digits and "-"): the parameter is dropped"#,
        #"12-malformed-parameters.ics:25: UID "name-not-ascii@example.com": malformed parameter "TZÏD=Europe/Berlin" (the name is not letters, digits and "-"): the parameter is dropped"#,
        #"12-malformed-parameters.ics:31: UID "no-equals@example.com": malformed parameter "VALUE" (no "="): the parameter is dropped"#,
        #"12-malformed-parameters.ics:37: UID "no-equals-before-tzid@example.com": malformed parameter "FOO" (no "="): the parameter is dropped"#,
        #"12-malformed-parameters.ics:43: UID "empty-name@example.com": malformed parameter "=DATE" (empty name): the parameter is dropped"#,
        #"12-malformed-parameters.ics:49: UID "empty-parameter@example.com": malformed parameter "" (empty): the parameter is dropped"#,
        #"12-malformed-parameters.ics:55: UID "empty-parameter-last@example.com": malformed parameter "" (empty): the parameter is dropped"#,
        #"12-malformed-parameters.ics:61: UID "text-after-quote@example.com": malformed parameter "TZID="Europe/Berlin"x" (text after the closing quote): "x" is dropped"#,
        #"12-malformed-parameters.ics:68: UID "summary-parameter@example.com": malformed parameter "L@NGUAGE=en" (the name is not letters, digits and "-"): the parameter is dropped"#,
        #"12-malformed-parameters.ics:75: UID "attendee-parameter@example.com": malformed parameter "R@LE=CHAIR" (the name is not letters, digits and "-"): the parameter is dropped"#,
    ]

    func testEachShapeKeepsItsLineWithoutTheBadParameter() throws {
        let libical = try libicalStarts()
        for workers in [0, 2] {
            let r = try readICS(try Fixtures.bytes(Self.file), label: Self.label, workers: workers)
            let starts = Dictionary(uniqueKeysWithValues: r.events.map { ($0.uid, shown($0.start)) })
            XCTAssertEqual(r.events.count, 12, "workers \(workers)")
            for (uid, start) in libical {
                if uid == "empty-parameter@example.com" {
                    // libical loses the TZID after ";;" (a floating 09:00); calpipe drops only the empty parameter.
                    XCTAssertEqual(start, "F20260419T090000")
                    XCTAssertEqual(starts[uid], "U1776582000", "09:00 in Berlin")
                } else {
                    XCTAssertEqual(starts[uid], start, "\(uid) as libical reads it, workers \(workers)")
                }
            }
            // libical marks these with X-LIC-ERROR: it keeps the first two DTSTARTs and drops the other two (it
            // reads the parameters after a bad one as the value); calpipe keeps every one without the bad part.
            XCTAssertEqual(starts["no-equals@example.com"], "D20260418")
            XCTAssertEqual(starts["empty-name@example.com"], "D20260419")
            XCTAssertEqual(starts["no-equals-before-tzid@example.com"], "U1776495600", "09:00 in Berlin")
            XCTAssertEqual(starts["empty-parameter-last@example.com"], "U1776668400", "09:00 in Berlin")
            let summary = r.events.first { $0.uid == "summary-parameter@example.com" }
            XCTAssertEqual(summary?.title, "a bad parameter on SUMMARY")
            XCTAssertEqual(summary?.fieldParameters, [:])
            let attendee = r.events.first { $0.uid == "attendee-parameter@example.com" }?.attendees
            XCTAssertEqual(attendee, [Attendee(name: "Ann", email: "ann@example.com")])
            XCTAssertEqual(r.repairs, Self.repairs, "workers \(workers)")
            // Where the value cannot be told from the parameter (a quote never closed), the line is dropped, as
            // both peers do: that event has no DTSTART left.
            XCTAssertEqual(r.rejections, ["12-malformed-parameters.ics:77: VEVENT has no DTSTART"])
        }
    }

    func testStrictRejectsEveryEventWithAMalformedParameter() throws {
        for workers in [0, 2] {
            let r = try readICS(try Fixtures.bytes(Self.file), label: Self.label, workers: workers, strict: true)
            XCTAssertEqual(r.events.map(\.uid), [])
            XCTAssertEqual(r.repairs, [])
            let expected = Self.repairs.map {
                $0.replacingOccurrences(of: #"UID "[^"]*": "#, with: "", options: .regularExpression)
                    .replacingOccurrences(of: #": (the parameter|"x") is dropped$"#, with: "", options: .regularExpression)
            } + ["12-malformed-parameters.ics:80: malformed parameter (unterminated quoted value)"]
            XCTAssertEqual(r.rejections, expected, "workers \(workers)")
        }
    }

    /// A good parameter after a bad one is read, and a bad one in a section the cache holds is said every time.
    func testAParameterAfterABadOneIsKeptAndEveryLineSaysItsRepair() throws {
        let text = ics(["BEGIN:VCALENDAR", "VERSION:2.0"] + (1...3).flatMap { n in
            ["BEGIN:VEVENT", "UID:r\(n)", "DTSTART;X_OLD=1;TZID=Europe/Berlin;X-NEW=\"a;b\":2026050\(n)T090000", "END:VEVENT"]
        } + ["END:VCALENDAR"])
        for workers in [0, 2] {
            let r = try readICS(Array(text.utf8), workers: workers)
            XCTAssertEqual(r.events.map { shown($0.start) }, ["U1777618800", "U1777705200", "U1777791600"])
            XCTAssertEqual(r.events.map { $0.fieldParameters["DTSTART"] ?? [] }, Array(repeating: [Parameter(name: "X-NEW", values: ["a;b"])], count: 3))
            XCTAssertEqual(r.repairs, (1...3).map {
                #"test.ics:\#(4 * $0 + 1): UID "r\#($0)": malformed parameter "X_OLD=1" (the name is not letters, digits and "-"): the parameter is dropped"#
            }, "workers \(workers)")
        }
    }

    /// Found by scripts/fuzz-diff: `COUN<<<T=4` (a mangled COUNT) was read without a word as a part to keep, and
    /// the series had no end. Now it is said (and strict rejects the event); libical drops the whole rule.
    func testARulePartThatIsNoRulePartIsARepair() throws {
        let text = ics(["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:night", "DTSTART:20260105T090000Z",
                        "RRULE:FREQ=DAILY;COUN<<T=4", "END:VEVENT", "END:VCALENDAR"])
        let r = try readICS(text)
        XCTAssertEqual(r.events.count, 1)
        XCTAssertEqual(r.repairs, [#"test.ics:6: UID "night": RRULE part COUN<<T is not a rule part: ignored"#])
        let strict = try readICS(text, strict: true)
        XCTAssertEqual(strict.events.count, 0)
        XCTAssertEqual(strict.rejections, ["test.ics:6: RRULE part COUN<<T is not a rule part"])
    }
}
