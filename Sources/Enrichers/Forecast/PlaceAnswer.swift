import Pipeline

/// One place's answer: its days, or why there are none.
public struct PlaceAnswer {
    public var days: [CivilDate: DailyForecast]
    public var origin: ForecastOrigin
    /// Set when the provider could not give this place a forecast ("open-meteo: ...").
    public var error: String?

    public init(days: [CivilDate: DailyForecast], origin: ForecastOrigin, error: String? = nil) {
        self.days = days
        self.origin = origin
        self.error = error
    }

    public static func failed(_ message: String) -> PlaceAnswer {
        PlaceAnswer(days: [:], origin: .fetched, error: message)
    }
}
