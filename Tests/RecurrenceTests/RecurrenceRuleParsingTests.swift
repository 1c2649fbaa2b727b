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
        XCTAssertEqual(error("FREQ=DAILY;BYMONTH=1,13"), "RRULE BYMONTH value \"13\" is out of range")
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
}
