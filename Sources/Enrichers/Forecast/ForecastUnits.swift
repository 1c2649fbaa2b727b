/// "metric" (°C, mm, km/h) or "imperial" (°F, inch, mph).
public enum ForecastUnits: String, Sendable, CaseIterable {
    case metric, imperial
}
