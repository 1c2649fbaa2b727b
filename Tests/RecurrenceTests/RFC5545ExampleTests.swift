import Pipeline
import XCTest

/// Every example of RFC 5545 section 3.8.5.3, with the dates the RFC lists. All examples are in
/// America/New_York; UNTIL values are UTC and are compared as instants.
final class RFC5545ExampleTests: XCTestCase {
    static let newYork = Zone.system(identifier: "America/New_York")!

    /// Expands `rule` from `start` ("19970902T090000") and compares the first occurrences, up to `through`
    /// (exclusive end, default: far enough to see the end of a bounded rule), with `expected`.
    func check(_ start: String, _ rule: String, _ expected: [String], through end: String = "20100101T000000",
               file: StaticString = #filePath, line: UInt = #line) throws {
        let parsed = try RecurrenceRule(parsing: rule)
        let s = localTime(start), e = localTime(end)
        let result = parsed.expand(start: s, from: s, to: e, zone: Self.newYork, includeStart: true)
        XCTAssertEqual(result.starts.map(\.basicFormat), expected, file: file, line: line)
        XCTAssertFalse(result.truncated, file: file, line: line)
    }

    func localTime(_ text: String) -> CivilDateTime {
        guard case .floating(let l)? = BasicDateText.parse(text) else { fatalError("bad test time \(text)") }
        return l
    }

    /// "1997-09-02" days at 09:00 from a list of (year, month, [days]).
    func at9(_ groups: [(Int, Int, [Int])]) -> [String] {
        groups.flatMap { y, m, days in days.map { CivilDateTime(year: y, month: m, day: $0, hour: 9).basicFormat } }
    }

    func testDailyForTenOccurrences() throws {
        try check("19970902T090000", "FREQ=DAILY;COUNT=10", at9([(1997, 9, Array(2...11))]))
    }

    func testDailyUntilDecember24() throws {
        try check("19970902T090000", "FREQ=DAILY;UNTIL=19971224T000000Z",
                  at9([(1997, 9, Array(2...30)), (1997, 10, Array(1...31)), (1997, 11, Array(1...30)), (1997, 12, Array(1...23))]))
    }

    func testEveryOtherDayForever() throws {
        try check("19970902T090000", "FREQ=DAILY;INTERVAL=2",
                  at9([(1997, 9, Array(stride(from: 2, through: 30, by: 2))), (1997, 10, Array(stride(from: 2, through: 30, by: 2))),
                       (1997, 11, Array(stride(from: 1, through: 29, by: 2))), (1997, 12, [1, 3])]),
                  through: "19971204T000000")
    }

    func testEveryTenDaysFiveOccurrences() throws {
        try check("19970902T090000", "FREQ=DAILY;INTERVAL=10;COUNT=5", at9([(1997, 9, [2, 12, 22]), (1997, 10, [2, 12])]))
    }

    func testEveryDayInJanuaryForThreeYears() throws {
        let expected = at9([(1998, 1, Array(1...31)), (1999, 1, Array(1...31)), (2000, 1, Array(1...31))])
        try check("19980101T090000", "FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA", expected)
        try check("19980101T090000", "FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1", expected)
    }

    func testWeeklyForTenOccurrences() throws {
        try check("19970902T090000", "FREQ=WEEKLY;COUNT=10", at9([(1997, 9, [2, 9, 16, 23, 30]), (1997, 10, [7, 14, 21, 28]), (1997, 11, [4])]))
    }

    func testWeeklyUntilDecember24() throws {
        try check("19970902T090000", "FREQ=WEEKLY;UNTIL=19971224T000000Z",
                  at9([(1997, 9, [2, 9, 16, 23, 30]), (1997, 10, [7, 14, 21, 28]), (1997, 11, [4, 11, 18, 25]), (1997, 12, [2, 9, 16, 23])]))
    }

    func testEveryOtherWeekForever() throws {
        try check("19970902T090000", "FREQ=WEEKLY;INTERVAL=2;WKST=SU",
                  at9([(1997, 9, [2, 16, 30]), (1997, 10, [14, 28]), (1997, 11, [11, 25]), (1997, 12, [9, 23]), (1998, 1, [6, 20]), (1998, 2, [3, 17])]),
                  through: "19980218T000000")
    }

    func testWeeklyOnTuesdayAndThursdayForFiveWeeks() throws {
        let expected = at9([(1997, 9, [2, 4, 9, 11, 16, 18, 23, 25, 30]), (1997, 10, [2])])
        try check("19970902T090000", "FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH", expected)
        try check("19970902T090000", "FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH", expected)
    }

    func testEveryOtherWeekOnMondayWednesdayFriday() throws {
        try check("19970901T090000", "FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR",
                  at9([(1997, 9, [1, 3, 5, 15, 17, 19, 29]), (1997, 10, [1, 3, 13, 15, 17, 27, 29, 31]),
                       (1997, 11, [10, 12, 14, 24, 26, 28]), (1997, 12, [8, 10, 12, 22])]))
    }

    func testEveryOtherWeekOnTuesdayAndThursdayEightOccurrences() throws {
        try check("19970902T090000", "FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH",
                  at9([(1997, 9, [2, 4, 16, 18, 30]), (1997, 10, [2, 14, 16])]))
    }

    func testMonthlyOnFirstFridayTenOccurrences() throws {
        try check("19970905T090000", "FREQ=MONTHLY;COUNT=10;BYDAY=1FR",
                  at9([(1997, 9, [5]), (1997, 10, [3]), (1997, 11, [7]), (1997, 12, [5]), (1998, 1, [2]), (1998, 2, [6]),
                       (1998, 3, [6]), (1998, 4, [3]), (1998, 5, [1]), (1998, 6, [5])]))
    }

    func testMonthlyOnFirstFridayUntilDecember24() throws {
        try check("19970905T090000", "FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR",
                  at9([(1997, 9, [5]), (1997, 10, [3]), (1997, 11, [7]), (1997, 12, [5])]))
    }

    func testEveryOtherMonthFirstAndLastSunday() throws {
        try check("19970907T090000", "FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU",
                  at9([(1997, 9, [7, 28]), (1997, 11, [2, 30]), (1998, 1, [4, 25]), (1998, 3, [1, 29]), (1998, 5, [3, 31])]))
    }

    func testMonthlySecondToLastMonday() throws {
        try check("19970922T090000", "FREQ=MONTHLY;COUNT=6;BYDAY=-2MO",
                  at9([(1997, 9, [22]), (1997, 10, [20]), (1997, 11, [17]), (1997, 12, [22]), (1998, 1, [19]), (1998, 2, [16])]))
    }

    func testMonthlyThirdToLastDay() throws {
        try check("19970928T090000", "FREQ=MONTHLY;BYMONTHDAY=-3",
                  at9([(1997, 9, [28]), (1997, 10, [29]), (1997, 11, [28]), (1997, 12, [29]), (1998, 1, [29]), (1998, 2, [26])]),
                  through: "19980301T000000")
    }

    func testMonthlyOnSecondAndFifteenth() throws {
        try check("19970902T090000", "FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15",
                  at9([(1997, 9, [2, 15]), (1997, 10, [2, 15]), (1997, 11, [2, 15]), (1997, 12, [2, 15]), (1998, 1, [2, 15])]))
    }

    func testMonthlyOnFirstAndLastDay() throws {
        try check("19970930T090000", "FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1",
                  at9([(1997, 9, [30]), (1997, 10, [1, 31]), (1997, 11, [1, 30]), (1997, 12, [1, 31]), (1998, 1, [1, 31]), (1998, 2, [1])]))
    }

    func testEveryEighteenMonths() throws {
        try check("19970910T090000", "FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15",
                  at9([(1997, 9, [10, 11, 12, 13, 14, 15]), (1999, 3, [10, 11, 12, 13])]))
    }

    func testEveryTuesdayEveryOtherMonth() throws {
        try check("19970902T090000", "FREQ=MONTHLY;INTERVAL=2;BYDAY=TU",
                  at9([(1997, 9, [2, 9, 16, 23, 30]), (1997, 11, [4, 11, 18, 25]), (1998, 1, [6, 13, 20, 27]), (1998, 3, [3, 10, 17, 24, 31])]),
                  through: "19980401T000000")
    }

    func testYearlyInJuneAndJuly() throws {
        try check("19970610T090000", "FREQ=YEARLY;COUNT=10;BYMONTH=6,7",
                  at9((1997...2001).flatMap { [($0, 6, [10]), ($0, 7, [10])] }))
    }

    func testEveryOtherYearInJanuaryFebruaryMarch() throws {
        try check("19970310T090000", "FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3",
                  at9([(1997, 3, [10])] + [1999, 2001, 2003].flatMap { [($0, 1, [10]), ($0, 2, [10]), ($0, 3, [10])] }))
    }

    func testEveryThirdYearOnDays1And100And200() throws {
        try check("19970101T090000", "FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200",
                  at9([(1997, 1, [1]), (1997, 4, [10]), (1997, 7, [19]), (2000, 1, [1]), (2000, 4, [9]), (2000, 7, [18]),
                       (2003, 1, [1]), (2003, 4, [10]), (2003, 7, [19]), (2006, 1, [1])]))
    }

    func testEvery20thMondayOfTheYear() throws {
        try check("19970519T090000", "FREQ=YEARLY;BYDAY=20MO", at9([(1997, 5, [19]), (1998, 5, [18]), (1999, 5, [17])]),
                  through: "20000101T000000")
    }

    func testMondayOfWeek20() throws {
        try check("19970512T090000", "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO", at9([(1997, 5, [12]), (1998, 5, [11]), (1999, 5, [17])]),
                  through: "20000101T000000")
    }

    func testEveryThursdayInMarch() throws {
        try check("19970313T090000", "FREQ=YEARLY;BYMONTH=3;BYDAY=TH",
                  at9([(1997, 3, [13, 20, 27]), (1998, 3, [5, 12, 19, 26]), (1999, 3, [4, 11, 18, 25])]), through: "20000101T000000")
    }

    func testEveryThursdayInSummer() throws {
        try check("19970605T090000", "FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8",
                  at9([(1997, 6, [5, 12, 19, 26]), (1997, 7, [3, 10, 17, 24, 31]), (1997, 8, [7, 14, 21, 28]),
                       (1998, 6, [4, 11, 18, 25]), (1998, 7, [2, 9, 16, 23, 30]), (1998, 8, [6, 13, 20, 27]),
                       (1999, 6, [3, 10, 17, 24]), (1999, 7, [1, 8, 15, 22, 29]), (1999, 8, [5, 12, 19, 26])]),
                  through: "20000101T000000")
    }

    func testEveryFridayThe13th() throws {
        // The RFC excludes DTSTART with an EXDATE; the rule alone (without DTSTART) gives the same list.
        let rule = try RecurrenceRule(parsing: "FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13")
        let s = localTime("19970902T090000")
        let result = rule.expand(start: s, from: s, to: localTime("20001014T000000"), zone: Self.newYork)
        XCTAssertEqual(result.starts.map(\.basicFormat),
                       at9([(1998, 2, [13]), (1998, 3, [13]), (1998, 11, [13]), (1999, 8, [13]), (2000, 10, [13])]))
    }

    func testFirstSaturdayAfterFirstSunday() throws {
        try check("19970913T090000", "FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13",
                  at9([(1997, 9, [13]), (1997, 10, [11]), (1997, 11, [8]), (1997, 12, [13]), (1998, 1, [10]), (1998, 2, [7]),
                       (1998, 3, [7]), (1998, 4, [11]), (1998, 5, [9]), (1998, 6, [13])]),
                  through: "19980701T000000")
    }

    func testUSPresidentialElectionDay() throws {
        try check("19961105T090000", "FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8",
                  at9([(1996, 11, [5]), (2000, 11, [7]), (2004, 11, [2])]), through: "20050101T000000")
    }

    func testThirdInstanceOfTuesdayWednesdayThursday() throws {
        try check("19970904T090000", "FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3",
                  at9([(1997, 9, [4]), (1997, 10, [7]), (1997, 11, [6])]))
    }

    func testSecondToLastWeekday() throws {
        try check("19970929T090000", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2",
                  at9([(1997, 9, [29]), (1997, 10, [30]), (1997, 11, [27]), (1997, 12, [30]), (1998, 1, [29]), (1998, 2, [26]), (1998, 3, [30])]),
                  through: "19980401T000000")
    }

    func testEveryThreeHours() throws {
        // The RFC lists 09:00, 12:00, 15:00, but its UNTIL 17:00Z is 13:00 EDT, so 15:00 EDT is after it: the
        // example reads UNTIL as local time. Read as the UTC instant it is, the rule ends after 12:00; written
        // as local time (as the example meant), it gives the RFC's three times.
        try check("19970902T090000", "FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000Z", ["19970902T090000", "19970902T120000"])
        try check("19970902T090000", "FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000",
                  ["19970902T090000", "19970902T120000", "19970902T150000"])
    }

    func testEveryFifteenMinutes() throws {
        try check("19970902T090000", "FREQ=MINUTELY;INTERVAL=15;COUNT=6",
                  ["19970902T090000", "19970902T091500", "19970902T093000", "19970902T094500", "19970902T100000", "19970902T101500"])
    }

    func testEveryHourAndAHalf() throws {
        try check("19970902T090000", "FREQ=MINUTELY;INTERVAL=90;COUNT=4",
                  ["19970902T090000", "19970902T103000", "19970902T120000", "19970902T133000"])
    }

    func testEveryTwentyMinutesFromNineToFourForty() throws {
        var expected: [String] = []
        for day in [2, 3] {
            for hour in 9...16 {
                for minute in [0, 20, 40] {
                    expected.append(CivilDateTime(year: 1997, month: 9, day: day, hour: hour, minute: minute).basicFormat)
                }
            }
        }
        try check("19970902T090000", "FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40", expected, through: "19970904T000000")
        try check("19970902T090000", "FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16", expected, through: "19970904T000000")
    }

    func testWeekStartMondayChangesTheDays() throws {
        try check("19970805T090000", "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", at9([(1997, 8, [5, 10, 19, 24])]))
    }

    func testWeekStartSundayChangesTheDays() throws {
        try check("19970805T090000", "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU", at9([(1997, 8, [5, 17, 19, 31])]))
    }

    func testInvalidDateIsIgnored() throws {
        try check("20070115T090000", "FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5", at9([(2007, 1, [15, 30]), (2007, 2, [15]), (2007, 3, [15, 30])]))
    }
}
