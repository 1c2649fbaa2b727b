import Foundation

/// An RFC 7529 RSCALE calendar, read through Foundation's `Calendar` (ICU): its years and months as runs of
/// days (days since 1970, as `CivilDate` counts them), with the months labelled as RFC 7529 numbers them
/// (1...13, and "5L" for a leap month).
///
/// Available: every calendar Foundation provides whose dates come out right on this platform. ETHIOAA
/// (Ethiopic Amete Alem) is left out: on Linux, `Calendar(identifier: .ethiopicAmeteAlem)` gives Gregorian
/// fields (2014-05-06 comes back as year 2014, month 5, day 6 instead of 7506-09-28).
final class RScaleCalendar: Sendable {
    /// Upper-case RSCALE names (CLDR calendar names) calpipe expands, and Foundation's identifier for each.
    static let identifiers: [(String, Calendar.Identifier)] = [
        ("GREGORIAN", .gregorian), ("BUDDHIST", .buddhist), ("CHINESE", .chinese), ("COPTIC", .coptic), ("DANGI", .dangi),
        ("ETHIOPIC", .ethiopicAmeteMihret), ("HEBREW", .hebrew), ("INDIAN", .indian), ("ISLAMIC", .islamic),
        ("ISLAMIC-CIVIL", .islamicCivil), ("ISLAMIC-TBLA", .islamicTabular), ("ISLAMIC-UMALQURA", .islamicUmmAlQura),
        ("JAPANESE", .japanese), ("PERSIAN", .persian), ("ROC", .republicOfChina),
    ]

    static var supportedNames: [String] { identifiers.map(\.0) }

    static func isSupported(_ name: String) -> Bool {
        identifiers.contains { $0.0 == name }
    }

    /// Why calpipe cannot expand an RSCALE rule it read, nil when it can.
    static func unsupported(_ rule: RecurrenceRule) -> String? {
        guard rule.rscale != nil else { return nil }
        switch rule.frequency {
        case .hourly, .minutely, .secondly:
            return "RRULE RSCALE with FREQ=\(rule.frequency.rawValue) is not supported (YEARLY, MONTHLY, WEEKLY and DAILY are)"
        default: break
        }
        if !rule.byWeekNo.isEmpty { return "RRULE RSCALE with BYWEEKNO is not supported" }
        return nil
    }

    /// True when the rule needs this calendar machinery rather than the Gregorian engine.
    static func needed(for rule: RecurrenceRule) -> Bool {
        guard let name = rule.rscale else { return false }
        return name != "GREGORIAN" || rule.skip != .omit || !rule.leapMonths.isEmpty
    }

    /// A month's RFC 7529 label: its number and whether it is a leap month ("5L").
    struct MonthLabel: Hashable {
        var number: Int
        var leap: Bool
    }

    struct Month {
        var label: MonthLabel
        var firstDay: Int
        var length: Int
    }

    let name: String
    private let calendar: Calendar
    private let isHebrew: Bool

    init?(name: String) {
        guard let id = Self.identifiers.first(where: { $0.0 == name })?.1 else { return nil }
        var c = Calendar(identifier: id)
        c.timeZone = TimeZone(identifier: "UTC")!
        calendar = c
        self.name = name
        isHebrew = id == .hebrew
    }

    private func date(_ day: Int) -> Date { Date(timeIntervalSince1970: Double(day) * 86_400 + 43_200) }
    private func day(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) }

    /// The first day of the year holding `day`, and the first day of the next.
    func year(holding day: Int) -> (first: Int, next: Int) {
        guard let i = calendar.dateInterval(of: .year, for: date(day)) else { return (day, day + 1) }
        return (self.day(i.start), self.day(i.end))
    }

    /// The month holding `day`, labelled.
    func month(holding day: Int) -> Month {
        let d = date(day)
        guard let i = calendar.dateInterval(of: .month, for: d) else { return Month(label: MonthLabel(number: 1, leap: false), firstDay: day, length: 1) }
        let first = self.day(i.start)
        return Month(label: label(of: d), firstDay: first, length: self.day(i.end) - first)
    }

    /// The months of the year starting on `first` and ending before `next`.
    func months(from first: Int, to next: Int) -> [Month] {
        var out: [Month] = []
        var d = first
        while d < next {
            let m = month(holding: d)
            out.append(m)
            d = m.firstDay + max(1, m.length)
        }
        return out
    }

    /// The RFC 7529 label of the month holding `date`: Foundation counts the Hebrew Adar I as month 6 of 13
    /// (RFC 7529: 5L) and the Chinese leap months with a flag.
    private func label(of date: Date) -> MonthLabel {
        let c = calendar.dateComponents([.month, .isLeapMonth], from: date)
        let m = c.month ?? 1
        if isHebrew {
            if m == 6 { return MonthLabel(number: 5, leap: true) }
            return MonthLabel(number: m > 6 ? m - 1 : m, leap: false)
        }
        return MonthLabel(number: m, leap: c.isLeapMonth ?? false)
    }
}
