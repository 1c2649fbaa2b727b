/// "metric" (°C, mm, km/h) or "imperial" (°F, inch, mph).
package enum ForecastUnits: String, Sendable, CaseIterable {
    case metric, imperial
}
