import Foundation

/// Weekday names in a locale (the pipeline's `"locale"`, default "en"), from Foundation's CLDR data:
/// "de" gives "Donnerstag" and "Do.". Made once per run; looking a name up costs an array index.
package struct WeekdayNames: Sendable, Hashable {
    package let locale: String
    /// Monday first (ISO 8601), as `CivilDate.weekday` counts.
    private let long: [String]
    private let short: [String]

    package init(locale: String) {
        self.locale = locale
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: locale)
        formatter.calendar = Calendar(identifier: .gregorian)
        // Foundation lists Sunday first.
        func mondayFirst(_ names: [String]?, fallback: [String]) -> [String] {
            guard let names, names.count == 7 else { return fallback }
            return Array(names[1...]) + [names[0]]
        }
        long = mondayFirst(formatter.weekdaySymbols, fallback: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"])
        short = mondayFirst(formatter.shortWeekdaySymbols, fallback: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
    }

    /// Whether Foundation knows the locale ("de", "en_GB", "pt-BR"); an unknown one would silently be English.
    package static func isKnown(_ locale: String) -> Bool {
        let underscored = locale.replacingOccurrences(of: "-", with: "_")
        let known = Locale.availableIdentifiers
        return known.contains(underscored) || known.contains(locale)
    }

    /// "Thursday" ("Donnerstag").
    package func name(of date: CivilDate) -> String { long[date.isoWeekday - 1] }

    /// "Thu" ("Do.").
    package func shortName(of date: CivilDate) -> String { short[date.isoWeekday - 1] }
}
