import Pipeline
import XCTest

final class URLRedactionTests: XCTestCase {
    func testPasswordsAndTokenParametersAreMasked() {
        XCTAssertEqual(URLRedaction.redact("https://ada:s3cret@cal.example.com/team.ics"), "https://ada:***@cal.example.com/team.ics")
        XCTAssertEqual(URLRedaction.redact("https://ada@cal.example.com/team.ics"), "https://ada@cal.example.com/team.ics", "a user name alone is not a secret")
        XCTAssertEqual(URLRedaction.redact("https://cal.example.com/x.ics?token=abc&view=week"), "https://cal.example.com/x.ics?token=***&view=week")
        XCTAssertEqual(URLRedaction.redact("https://h/x?Access_Token=a&key=b&apikey=c&api_key=d&sig=e&signature=f&password=g&q=1"),
                       "https://h/x?Access_Token=***&key=***&apikey=***&api_key=***&sig=***&signature=***&password=***&q=1")
        XCTAssertEqual(URLRedaction.redact("https://u:p@h/x?token=a#frag"), "https://u:***@h/x?token=***#frag")
        XCTAssertEqual(URLRedaction.redact("https://h/a@b?monkey=1"), "https://h/a@b?monkey=1", "an @ in the path is not user information")
        XCTAssertEqual(URLRedaction.redact("https://h/x?api%5Fkey=zz"), "https://h/x?api%5Fkey=***", "names are compared decoded")
        XCTAssertEqual(URLRedaction.redact("https://cal.example.com/team.ics"), "https://cal.example.com/team.ics")
    }

    func testDurations() {
        XCTAssertEqual(DurationOption.seconds("30s"), 30)
        XCTAssertEqual(DurationOption.seconds("15m"), 900)
        XCTAssertEqual(DurationOption.seconds("6h"), 21_600)
        XCTAssertEqual(DurationOption.seconds("2d"), 172_800)
        XCTAssertEqual(DurationOption.seconds("90"), 90)
        XCTAssertNil(DurationOption.seconds("2 days"))
        XCTAssertNil(DurationOption.seconds("-5m"))
        XCTAssertEqual(DurationOption.describe(59.9), "59 s")
        XCTAssertEqual(DurationOption.describe(7_500), "2 h 5 min")
        XCTAssertEqual(DurationOption.describe(3 * 86_400 + 4 * 3600), "3 d 4 h")
    }
}
