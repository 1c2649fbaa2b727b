/// The icon names calpipe writes for a weather code (docs/json-format.md, "Weather icons"): one name per
/// kind of weather, with `-day` and `-night` forms where the sky matters (clear and partly cloudy). A daily
/// forecast uses the day form.
///
/// | icon | WMO codes |
/// |---|---|
/// | `clear-day`, `clear-night` | 0, 1 |
/// | `partly-cloudy-day`, `partly-cloudy-night` | 2 |
/// | `cloudy` | 3 |
/// | `fog` | 45, 48 |
/// | `drizzle` | 51, 53, 55 |
/// | `sleet` | 56, 57, 66, 67 (freezing drizzle and rain) |
/// | `rain` | 61, 63, 65, 80, 81, 82 |
/// | `snow` | 71, 73, 75, 77, 85, 86 |
/// | `thunderstorm` | 95, 96, 99 |
public enum WeatherIcon {
    /// Every name calpipe may write, for documentation and the JSON Schema.
    public static let all = ["clear-day", "clear-night", "partly-cloudy-day", "partly-cloudy-night", "cloudy", "fog",
                             "drizzle", "rain", "snow", "sleet", "thunderstorm"]

    /// The icon for a WMO code; nil for a code outside WMO 4677's weather codes.
    public static func name(forCode code: Int, daytime: Bool = true) -> String? {
        switch code {
        case 0, 1: return daytime ? "clear-day" : "clear-night"
        case 2: return daytime ? "partly-cloudy-day" : "partly-cloudy-night"
        case 3: return "cloudy"
        case 45, 48: return "fog"
        case 51, 53, 55: return "drizzle"
        case 56, 57, 66, 67: return "sleet"
        case 61, 63, 65, 80, 81, 82: return "rain"
        case 71, 73, 75, 77, 85, 86: return "snow"
        case 95, 96, 99: return "thunderstorm"
        default: return nil
        }
    }

    /// What falls, by the same code: "snow", "sleet" or "rain" (also for drizzle and thunderstorms), so a
    /// probability is labelled to agree with the summary ("54% snow" beside "Slight snowfall").
    public static func precipitationKind(forCode code: Int?) -> String {
        switch code.flatMap({ name(forCode: $0) }) {
        case "snow"?: return "snow"
        case "sleet"?: return "sleet"
        default: return "rain"
        }
    }
}

extension DailyForecast {
    /// The day form of the icon for `weatherCode` (nil without a code).
    public var icon: String? { weatherCode.flatMap { WeatherIcon.name(forCode: $0) } }
}
