/// The ranges of a rule's numeric parts (RFC 5545 3.3.10, RFC 7529 for BYMONTH under RSCALE): the one table
/// that `RecurrenceRule.parse` checks every value against, whatever format the rule came in (iCalendar, xCal
/// and jCal through the iCalendar reader, the JSON source's `rrule` strings). The engine (`RuleEngine`) may
/// then rely on them, and still ignores out-of-range values of rules built in code.
extension RecurrenceRule {
    package enum Limits {
        /// One part's range. A signed part ("-1" = the last) takes `-upper ... -1` and `lower ... upper`; zero
        /// never. Checked without `abs`, so even `Int.min` is only a value out of range.
        package struct Range: Sendable {
            package let lower: Int
            package let upper: Int
            package let signed: Bool

            package init(_ lower: Int, _ upper: Int, signed: Bool = false) {
                self.lower = lower
                self.upper = upper
                self.signed = signed
            }

            package func contains(_ n: Int) -> Bool {
                if signed && n < 0 { return n >= -upper }
                return n >= lower && n <= upper
            }

            /// "1 to 12", "1 to 31 or -31 to -1".
            package var text: String {
                signed ? "\(lower) to \(upper) or -\(upper) to -1" : "\(lower) to \(upper)"
            }
        }

        package static let bySecond = Range(0, 60)
        package static let byMinute = Range(0, 59)
        package static let byHour = Range(0, 23)
        package static let byMonthDay = Range(1, 31, signed: true)
        package static let byYearDay = Range(1, 366, signed: true)
        package static let byWeekNo = Range(1, 53, signed: true)
        package static let byMonth = Range(1, 12)
        /// Under RSCALE a year may have 13 months (Ethiopic, Coptic; RFC 7529 3.1).
        package static let byMonthRScale = Range(1, 13)
        package static let bySetPos = Range(1, 366, signed: true)
        /// The "2" of "2MO", "-1" of "-1FR".
        package static let weekdayOrdinal = Range(1, 53, signed: true)
        /// INTERVAL has no upper bound in the RFC; larger values than `Int.max` are read as `Int.max`. The
        /// engine caps it per frequency (`maxEffectiveInterval`) where a second period is out of reach anyway.
        package static let interval = Range(1, Int.max)
        /// COUNT; larger values than `Int.max` are read as `Int.max`.
        package static let count = Range(0, Int.max)

        /// The largest INTERVAL that still changes a rule's instances: beyond it, the second period starts more
        /// than 20,000 years after the first, past any date a calendar can name (years 0000-9999), so the rule
        /// gives DTSTART alone either way. The engine caps INTERVAL there, which keeps all its arithmetic far
        /// from overflow.
        package static func maxEffectiveInterval(_ frequency: Frequency) -> Int {
            switch frequency {
            case .yearly: return 20_000
            case .monthly: return 240_000
            case .weekly: return 1_050_000
            case .daily: return 7_305_000
            case .hourly: return 175_320_000
            case .minutely: return 10_519_200_000
            case .secondly: return 631_152_000_000
            }
        }
    }
}
