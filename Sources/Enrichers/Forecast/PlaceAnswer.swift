import Pipeline

/// One place's answer: its days, or why there are none.
package struct PlaceAnswer {
    package var days: [CivilDate: DailyForecast]
    package var origin: ForecastOrigin
    /// Set when the provider could not give this place a forecast ("open-meteo: ...").
    package var error: String?

    package init(days: [CivilDate: DailyForecast], origin: ForecastOrigin, error: String? = nil) {
        self.days = days
        self.origin = origin
        self.error = error
    }

    package static func failed(_ message: String) -> PlaceAnswer {
        PlaceAnswer(days: [:], origin: .fetched, error: message)
    }
}
