/// The credit each forecast provider's licence asks for, so sinks can write it next to the data they export.
extension DailyForecast {
    /// The attribution text for a provider name ("open-meteo", "metno", "file"), or nil for an unknown one.
    /// Both services license their data under CC BY 4.0, which requires the credit wherever the data is shown.
    package static func attribution(forProvider provider: String) -> String? {
        switch provider {
        case "open-meteo", "file":
            return "Weather data by Open-Meteo.com (https://open-meteo.com/), licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)"
        case "metno":
            return "Weather data from MET Norway (https://api.met.no/), licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)"
        default:
            return nil
        }
    }

    /// The attributions for the providers of some day entries, sorted and without repeats.
    package static func attributions(for days: [DayEntry]) -> [String] {
        var providers = Set<String>()
        for day in days {
            if case .forecast(let forecast, _)? = day.forecast { providers.insert(forecast.provider) }
        }
        return Set(providers.compactMap(attribution(forProvider:))).sorted()
    }
}

extension DailyForecast {
    /// The attributions for the providers of some days' weather, sorted and without repeats.
    package static func attributions(for days: [AgendaDay]) -> [String] {
        let providers = Set(days.compactMap { $0.weather?.forecast?.provider })
        return Set(providers.compactMap(attribution(forProvider:))).sorted()
    }
}
