import XCTest
@testable import Pipeline

/// RRULE text to `RecurrenceRule`: fields, empty parts, the errors a user sees, and the same result whether a
/// rule is cut on bytes (ASCII, the usual case) or by characters (anything else).
final class RecurrenceRuleParsingTests: XCTestCase {
    private func error(_ text: String) -> String {
        do {
            _ = try RecurrenceRule(parsing: text)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testFieldsEmptyPartsAndItems() throws {
        let r = try RecurrenceRule(parsing: ";freq=monthly;;INTERVAL=2;BYDAY=MO,,-1FR,+2tu;BYMONTHDAY=1,-1;COUNT=5;X-NAME=a=b;")
        XCTAssertEqual(r.frequency, .monthly)
        XCTAssertEqual(r.interval, 2)
        XCTAssertEqual(r.byDay, [.init(1), .init(5, ordinal: -1), .init(2, ordinal: 2)])
        XCTAssertEqual(r.byMonthDay, [1, -1])
        XCTAssertEqual(r.end, .count(5))
        XCTAssertEqual(r.otherParts.map { "\($0.0)=\($0.1)" }, ["X-NAME=a=b"])
    }

    func testErrorsNameThePart() {
        XCTAssertEqual(error("FREQ=DAILY;BYDAY"), "RRULE part \"BYDAY\" has no \"=\"")
        XCTAssertEqual(error("FREQ=DAILY;freq=WEEKLY"), "RRULE part FREQ appears twice")
        XCTAssertEqual(error("FREQ=DAILY;BYMONTH=1,13"), "RRULE BYMONTH value \"13\" is out of range (1 to 12)")
        XCTAssertEqual(error("INTERVAL=2"), "RRULE has no FREQ")
    }

    /// Non-ASCII rules take the character path: the same parts, keys and values as the byte path would give.
    func testNonASCIIRulesAreCutByCharacters() throws {
        let r = try RecurrenceRule(parsing: "FREQ=WEEKLY;X-LABEL=Café;BYDAY=MO,TU")
        XCTAssertEqual(r.otherParts.map { "\($0.0)=\($0.1)" }, ["X-LABEL=Café"])
        XCTAssertEqual(r.byDay, [.init(1), .init(2)])
        XCTAssertEqual(RecurrenceRule.parts(of: "A=é;;B=1;"), ["A=é", "B=1"])
        XCTAssertEqual(RecurrenceRule.parts(of: "A=1;;B=2;"), ["A=1", "B=2"])
        XCTAssertEqual(RecurrenceRule.parts(of: "1,,2,", separator: 0x2C), ["1", "2"])
        // A ';' followed by a combining accent is one character, not a separator (as before the byte path).
        XCTAssertEqual(RecurrenceRule.parts(of: "A=1;\u{301}B=2"), ["A=1;\u{301}B=2"])
        XCTAssertEqual(error("FREQ=DAILY;BYDAY=MÖ"), "RRULE BYDAY value \"MÖ\" is not a weekday")
    }

    private func lenient(_ text: String) throws -> RecurrenceRule.Parsed {
        try RecurrenceRule.parse(text)
    }

    private func lenientError(_ text: String) -> String {
        do {
            _ = try RecurrenceRule.parse(text)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    /// Issue 16: Int.min in any BY part (abs() trapped on it), and numbers that do not fit in Int, are values
    /// out of range, never a crash, in both modes.
    func testExtremeNumbersAreOutOfRangeNotATrap() throws {
        let min = "-9223372036854775808"
        for part in ["BYSECOND", "BYMINUTE", "BYHOUR", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS"] {
            XCTAssertTrue(error("FREQ=YEARLY;\(part)=\(min)").hasPrefix("RRULE \(part) value \"\(min)\" is out of range"), part)
            XCTAssertTrue(lenientError("FREQ=YEARLY;\(part)=\(min)").hasPrefix("RRULE \(part) value \"\(min)\" is out of range"), part)
            XCTAssertTrue(error("FREQ=YEARLY;\(part)=99999999999999999999999").contains("out of range"), part)
            // With a valid value beside it, lenient keeps the rule and says what it dropped.
            let kept = try lenient("FREQ=YEARLY;\(part)=1,\(min)")
            XCTAssertEqual(kept.repairs, ["RRULE \(part) value \"\(min)\" is out of range (\(kept.rule.text.contains("BYMONTH=") ? "1 to 12" : RuleRangeText.of(part))); the value is dropped"], part)
        }
        XCTAssertEqual(error("FREQ=MONTHLY;BYDAY=\(min)MO"), "RRULE BYDAY value \"\(min)MO\" has a bad ordinal (1 to 53 or -53 to -1)")
        XCTAssertEqual(error("FREQ=MONTHLY;BYDAY=9223372036854775807MO"), "RRULE BYDAY value \"9223372036854775807MO\" has a bad ordinal (1 to 53 or -53 to -1)")
        XCTAssertEqual(try lenient("FREQ=MONTHLY;BYDAY=1MO,\(min)MO").rule.byDay, [.init(1, ordinal: 1)])
        // INTERVAL and COUNT past Int.max mean Int.max.
        XCTAssertEqual(try RecurrenceRule(parsing: "FREQ=DAILY;INTERVAL=99999999999999999999999").interval, Int.max)
        XCTAssertEqual(try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=99999999999999999999999").end, .count(Int.max))
        XCTAssertEqual(error("FREQ=DAILY;INTERVAL=\(min)"), "RRULE INTERVAL \"\(min)\" is not a positive integer")
        XCTAssertEqual(try lenient("FREQ=DAILY;INTERVAL=0").repairs, ["RRULE INTERVAL \"0\" is not a positive integer; read as 1"])
        XCTAssertEqual(error("FREQ=DAILY;COUNT=\(min)"), "RRULE COUNT \"\(min)\" must be a non-negative integer")
    }

    /// Issue 16: a huge INTERVAL in every frequency expands (DTSTART alone, as nothing else is in reach)
    /// instead of overflowing, with and without COUNT and UNTIL.
    func testHugeIntervalsInEveryFrequencyGiveDTSTARTAlone() throws {
        let start = CivilDateTime(year: 2026, month: 3, day: 29, hour: 1, minute: 30)
        for f in RecurrenceRule.Frequency.allCases {
            for interval in [Int.max, Int.max / 2, 1 << 62, RecurrenceRule.Limits.maxEffectiveInterval(f), RecurrenceRule.Limits.maxEffectiveInterval(f) + 1] {
                for end in ["", ";COUNT=3", ";UNTIL=99991231T235959Z", ";COUNT=5;UNTIL=99991231"] {
                    let rule = try lenient("FREQ=\(f.rawValue);INTERVAL=\(interval)\(end);BYMONTH=3").rule
                    let got = rule.expand(start: start, from: CivilDateTime(year: 1, month: 1, day: 1),
                                          to: CivilDateTime(year: 9999, month: 12, day: 31), includeStart: true)
                    XCTAssertEqual(got.starts, [start], "\(f) \(interval)\(end)")
                }
            }
        }
        // Below the cap a large INTERVAL still counts: every 5,000th year.
        let yearly = try RecurrenceRule(parsing: "FREQ=YEARLY;INTERVAL=5000")
        XCTAssertEqual(yearly.expand(start: CivilDateTime(year: 1, month: 1, day: 1), from: CivilDateTime(year: 1, month: 1, day: 1),
                                     to: CivilDateTime(year: 9999, month: 1, day: 1)).starts.map(\.date.year), [1, 5001])
    }

    /// `text` (written as bytes by `appendText`) puts every part in its order: RSCALE, FREQ, COUNT or UNTIL,
    /// INTERVAL, the BY parts, WKST, SKIP, other parts. The expected texts are what the String-joining writer it
    /// replaced wrote (main at 82c09db: these rules as RRULEs of a feed, `calpipe convert r.ics -o r.json --shape
    /// events`, each event's "rrule").
    func testTextWritesEveryPartInItsOrder() throws {
        let cases = [
            ("freq=monthly;byday=-1fr,+2tu,SU;bymonthday=-1,1;interval=3;until=20261231T235959Z;wkst=su",
             "FREQ=MONTHLY;UNTIL=20261231T235959Z;INTERVAL=3;BYDAY=-1FR,2TU,SU;BYMONTHDAY=-1,1;WKST=SU"),
            ("FREQ=DAILY;COUNT=10;UNTIL=20260105", "FREQ=DAILY;COUNT=10;UNTIL=20260105"),
            ("RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L,6;BYMONTHDAY=-1;SKIP=FORWARD;COUNT=4",
             "RSCALE=HEBREW;FREQ=YEARLY;COUNT=4;BYMONTHDAY=-1;BYMONTH=6,5L;SKIP=FORWARD"),
            ("RSCALE=CHINESE;FREQ=MONTHLY;BYMONTH=5L;COUNT=3", "RSCALE=CHINESE;FREQ=MONTHLY;COUNT=3;BYMONTH=5L"),
            ("FREQ=YEARLY;BYWEEKNO=20,-1;BYDAY=MO;BYYEARDAY=1,100,-366;BYSETPOS=-1,2;X-NAME=a=b;UNTIL=20301231",
             "FREQ=YEARLY;UNTIL=20301231;BYDAY=MO;BYYEARDAY=1,100,-366;BYWEEKNO=20,-1;BYSETPOS=-1,2;X-NAME=a=b"),
            ("FREQ=SECONDLY;BYSECOND=0,30;BYMINUTE=5;BYHOUR=12;INTERVAL=15;COUNT=100",
             "FREQ=SECONDLY;COUNT=100;INTERVAL=15;BYSECOND=0,30;BYMINUTE=5;BYHOUR=12"),
            ("FREQ=WEEKLY;UNTIL=20270101T090000;BYDAY=TU,TH;WKST=MO", "FREQ=WEEKLY;UNTIL=20270101T090000;BYDAY=TU,TH"),
            ("FREQ=HOURLY;INTERVAL=1000000;COUNT=2147483647", "FREQ=HOURLY;COUNT=2147483647;INTERVAL=1000000"),
        ]
        for (input, expected) in cases {
            let rule = try RecurrenceRule.parse(input).rule
            XCTAssertEqual(rule.text, expected, input)
            var bytes: [UInt8] = Array("RRULE:".utf8)
            rule.appendText(to: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "RRULE:" + expected, input)
            XCTAssertEqual(try RecurrenceRule.parse(expected).rule, rule, input)
        }
    }

    /// Issue 15: what the lenient parser repairs, and what it still refuses.
    func testLenientRepairsAreNamedAndStrictRejectsThem() throws {
        let both = try lenient("FREQ=DAILY;COUNT=10;UNTIL=20260105")
        XCTAssertEqual(both.rule.end, .count(10))
        XCTAssertEqual(both.rule.untilWithCount, .date(CivilDate(year: 2026, month: 1, day: 5)))
        XCTAssertEqual(both.repairs, ["RRULE has both COUNT and UNTIL; kept both: the series ends at whichever comes first"])
        XCTAssertEqual(both.rule.text, "FREQ=DAILY;COUNT=10;UNTIL=20260105")
        XCTAssertEqual(error("FREQ=DAILY;COUNT=10;UNTIL=20260105"), "RRULE has both COUNT and UNTIL")

        let messy = try lenient("FREQ=WEEKLY;BYDAY;BYDAY=MO,XX;WKST=XY;FREQ=DAILY;FOO=1;X-OK=2;SKIP=FORWARD")
        XCTAssertEqual(messy.rule.frequency, .weekly)
        XCTAssertEqual(messy.rule.byDay, [.init(1)])
        XCTAssertEqual(messy.repairs, [
            "RRULE part \"BYDAY\" has no \"=\"; the part is dropped",
            "RRULE BYDAY value \"XX\" is not a weekday; the value is dropped",
            "RRULE WKST \"XY\" is not a weekday; read as MO",
            "RRULE part FREQ appears twice; kept the first",
            "RRULE part FOO is not a rule part; ignored",
            "RRULE SKIP needs RSCALE (RFC 7529); ignored",
        ])
        // A part that is no rule part is a repair, which strict rejects (a mangled COUNT would otherwise make an
        // endless series without a word); an x-name is legal and kept.
        XCTAssertEqual(error("FREQ=DAILY;COUN<<T=4"), "RRULE part COUN<<T is not a rule part")
        // A BY part with no value is ignored with a word (libical reads `BYHOUR=` as 0; it once vanished silently).
        let empty = try lenient("FREQ=DAILY;BYHOUR=;BYDAY=,;BYMONTH=;COUNT=3")
        XCTAssertEqual(empty.rule.text, "FREQ=DAILY;COUNT=3")
        XCTAssertEqual(empty.repairs, ["RRULE BYHOUR has no value; the part is ignored", "RRULE BYDAY has no value; the part is ignored",
                                       "RRULE BYMONTH has no value; the part is ignored"])
        XCTAssertEqual(error("FREQ=DAILY;BYHOUR="), "RRULE BYHOUR has no value")
        XCTAssertEqual(try RecurrenceRule(parsing: "FREQ=DAILY;X-OK=2").otherParts.map(\.0), ["X-OK"])
        // Not meaningful any more: thrown in both modes (the reader keeps the event without the rule).
        XCTAssertEqual(lenientError("INTERVAL=2"), "RRULE has no FREQ")
        XCTAssertEqual(lenientError("FREQ=DAILY;BYMONTH=13"), "RRULE BYMONTH value \"13\" is out of range (1 to 12)")
        XCTAssertEqual(lenientError("FREQ=DAILY;UNTIL=soon"), "RRULE UNTIL \"soon\" is not a date or date-time")
        XCTAssertEqual(lenientError("RSCALE=KLINGON;FREQ=YEARLY"),
                       "RRULE RSCALE \"KLINGON\" is a calendar calpipe cannot expand (available: \(RScaleCalendar.supportedNames.joined(separator: ", ")))")
        // UNTIL in extended form, and not in UTC, is read.
        XCTAssertEqual(try lenient("FREQ=DAILY;UNTIL=2026-01-05T10:00:00").rule.end,
                       .until(.floating(CivilDateTime(year: 2026, month: 1, day: 5, hour: 10))))
        // A clean rule has no repairs.
        XCTAssertEqual(try lenient("FREQ=MONTHLY;BYDAY=-1FR;COUNT=3").repairs, [])
    }
}

/// The range text `RecurrenceRule.Limits` gives for a BY part (for the test above).
private enum RuleRangeText {
    static func of(_ part: String) -> String {
        switch part {
        case "BYSECOND": return RecurrenceRule.Limits.bySecond.text
        case "BYMINUTE": return RecurrenceRule.Limits.byMinute.text
        case "BYHOUR": return RecurrenceRule.Limits.byHour.text
        case "BYMONTHDAY": return RecurrenceRule.Limits.byMonthDay.text
        case "BYYEARDAY": return RecurrenceRule.Limits.byYearDay.text
        case "BYWEEKNO": return RecurrenceRule.Limits.byWeekNo.text
        case "BYSETPOS": return RecurrenceRule.Limits.bySetPos.text
        default: return RecurrenceRule.Limits.byMonth.text
        }
    }
}
