/// WMO weather interpretation codes (WMO 4677, as Open-Meteo reports them) and their short English text.
package enum WeatherCode {
    package static func summary(_ code: Int) -> String? {
        switch code {
        case 0: return "Clear sky"
        case 1: return "Mainly clear"
        case 2: return "Partly cloudy"
        case 3: return "Overcast"
        case 45: return "Fog"
        case 48: return "Depositing rime fog"
        case 51: return "Light drizzle"
        case 53: return "Moderate drizzle"
        case 55: return "Dense drizzle"
        case 56: return "Light freezing drizzle"
        case 57: return "Dense freezing drizzle"
        case 61: return "Slight rain"
        case 63: return "Moderate rain"
        case 65: return "Heavy rain"
        case 66: return "Light freezing rain"
        case 67: return "Heavy freezing rain"
        case 71: return "Slight snowfall"
        case 73: return "Moderate snowfall"
        case 75: return "Heavy snowfall"
        case 77: return "Snow grains"
        case 80: return "Slight rain showers"
        case 81: return "Moderate rain showers"
        case 82: return "Violent rain showers"
        case 85: return "Slight snow showers"
        case 86: return "Heavy snow showers"
        case 95: return "Thunderstorm"
        case 96: return "Thunderstorm with slight hail"
        case 99: return "Thunderstorm with heavy hail"
        default: return nil
        }
    }

    /// MET Norway symbol codes ("lightrainshowers_day", "heavysnowandthunder") as the nearest WMO code.
    package static func fromMetNoSymbol(_ symbol: String) -> Int? {
        var base = Substring(symbol)
        if let underscore = base.firstIndex(of: "_") { base = base[..<underscore] }
        if base.hasSuffix("andthunder") || base.hasSuffix("thunder") { return 95 }
        switch base {
        case "clearsky": return 0
        case "fair": return 1
        case "partlycloudy": return 2
        case "cloudy": return 3
        case "fog": return 45
        case "lightrain": return 61
        case "rain": return 63
        case "heavyrain": return 65
        case "lightrainshowers": return 80
        case "rainshowers": return 81
        case "heavyrainshowers": return 82
        case "lightsleet": return 66
        case "sleet", "heavysleet": return 67
        case "lightsleetshowers", "sleetshowers": return 85
        case "heavysleetshowers": return 86
        case "lightsnow": return 71
        case "snow": return 73
        case "heavysnow": return 75
        case "lightsnowshowers", "snowshowers": return 85
        case "heavysnowshowers": return 86
        default: return nil
        }
    }
}
