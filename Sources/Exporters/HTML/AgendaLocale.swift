import Foundation
import Pipeline

/// Weekday and month names and clock times in a locale ("en", "de", "fr-CH"), through Foundation's
/// DateFormatter (ICU on Linux). Dates are formatted as civil dates: each is turned into the instant of its
/// midnight in UTC and formatted in UTC, so no zone rule can shift it. One instance per render; not shared.
package final class AgendaLocale {
    package let identifier: String
    private let calendar: Calendar
    private let headingFormatter: DateFormatter
    private let timeFormatter: DateFormatter
    private let monthYearFormatter: DateFormatter
    private let longFormatter: DateFormatter
    private let fullDateFormatter: DateFormatter
    /// Monday first, as the strip shows them.
    package let weekdayNames: [String]
    package let weekdayShortNames: [String]
    package let weekdayNarrowNames: [String]
    package let monthNames: [String]
    package let monthShortNames: [String]

    package init(identifier: String) {
        self.identifier = identifier
        let locale = Locale(identifier: identifier)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        calendar.locale = locale
        self.calendar = calendar
        func formatter(_ template: String) -> DateFormatter {
            let f = DateFormatter()
            f.locale = locale
            f.calendar = calendar
            f.timeZone = calendar.timeZone
            f.setLocalizedDateFormatFromTemplate(template)
            return f
        }
        headingFormatter = formatter("dMMMM")
        timeFormatter = formatter("jmm")
        monthYearFormatter = formatter("MMMMyyyy")
        longFormatter = formatter("dMMMMyyyyjmm")
        fullDateFormatter = formatter("EEEEdMMMMyyyy")
        let symbols = DateFormatter()
        symbols.locale = locale
        // Foundation lists weekdays Sunday first.
        func mondayFirst(_ names: [String]?) -> [String] {
            guard let names, names.count == 7 else { return ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] }
            return Array(names[1...]) + [names[0]]
        }
        weekdayNames = mondayFirst(symbols.standaloneWeekdaySymbols)
        weekdayShortNames = mondayFirst(symbols.shortStandaloneWeekdaySymbols)
        weekdayNarrowNames = mondayFirst(symbols.veryShortStandaloneWeekdaySymbols)
        monthNames = symbols.standaloneMonthSymbols
        monthShortNames = symbols.shortStandaloneMonthSymbols
    }

    private func date(_ day: CivilDate) -> Date { Date(timeIntervalSince1970: Double(day.daysSinceEpoch) * 86_400) }

    package func weekday(_ day: CivilDate) -> String { weekdayNames[day.isoWeekday - 1] }
    package func month(_ day: CivilDate) -> String { monthNames.count == 12 ? monthNames[day.month - 1] : String(day.month) }
    package func monthShort(_ day: CivilDate) -> String { monthShortNames.count == 12 ? monthShortNames[day.month - 1] : String(day.month) }

    /// The day and month in the locale's order: "12 October", "October 12", "12. Oktober".
    package func dayAndMonth(_ day: CivilDate) -> String { headingFormatter.string(from: date(day)) }

    /// "Wednesday, 21 October 2026", "Mittwoch, 21. Oktober 2026".
    package func fullDate(_ day: CivilDate) -> String { fullDateFormatter.string(from: date(day)) }

    /// "October 2026", "Oktober 2026".
    package func monthAndYear(_ day: CivilDate) -> String { monthYearFormatter.string(from: date(day)) }

    /// A clock time in the locale's style ("16:00", "4:00 PM").
    package func time(_ local: CivilDateTime) -> String {
        timeFormatter.string(from: Date(timeIntervalSince1970: Double(local.secondsSinceEpoch)))
    }

    /// A date and time ("25 November 2026 at 14:00").
    package func dateTime(_ local: CivilDateTime) -> String {
        longFormatter.string(from: Date(timeIntervalSince1970: Double(local.secondsSinceEpoch)))
    }
}
