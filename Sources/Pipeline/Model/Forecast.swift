/// A daily weather forecast for one place and day.
public struct DailyForecast: Hashable, Sendable {
    /// WMO weather interpretation code.
    public var weatherCode: Int?
    /// Short text for the code ("Light rain").
    public var summary: String?
    public var temperatureMax: Double?
    public var temperatureMin: Double?
    /// Percent, 0-100.
    public var precipitationProbability: Double?
    /// Millimetres or inches, by `units`.
    public var precipitationAmount: Double?
    /// km/h or mph, by `units`.
    public var windSpeedMax: Double?
    /// "metric" or "imperial".
    public var units: String
    /// Provider name ("open-meteo", "metno", "file").
    public var provider: String
    /// When the provider made the answer this day comes from (its HTTP `Date`, UTC seconds); nil for a file.
    public var fetchedAt: Int64?

    public init(weatherCode: Int? = nil, summary: String? = nil, temperatureMax: Double? = nil, temperatureMin: Double? = nil,
                precipitationProbability: Double? = nil, precipitationAmount: Double? = nil, windSpeedMax: Double? = nil,
                units: String = "metric", provider: String, fetchedAt: Int64? = nil) {
        self.weatherCode = weatherCode
        self.summary = summary
        self.temperatureMax = temperatureMax
        self.temperatureMin = temperatureMin
        self.precipitationProbability = precipitationProbability
        self.precipitationAmount = precipitationAmount
        self.windSpeedMax = windSpeedMax
        self.units = units
        self.provider = provider
        self.fetchedAt = fetchedAt
    }
}

/// What the forecast stage attached to a day entry: a forecast, or why there is none.
public enum ForecastResult: Hashable, Sendable {
    case forecast(DailyForecast, place: Coordinate)
    /// Reason: "beyond-horizon", "past", "no-location" or "unavailable".
    case missing(reason: String)
}
