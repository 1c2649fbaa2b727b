import Pipeline

/// A source of daily forecasts: one file per provider under Providers/, chosen by the stage's `"provider"`.
package protocol ForecastProvider: AnyObject {
    /// The name shown in options, messages and `DailyForecast.provider` ("open-meteo").
    var name: String { get }
    /// How many places go into one request.
    var placesPerRequest: Int { get }
    /// Why a day gets no forecast without asking ("past", "beyond-horizon"), or nil when it may be asked for.
    func missingReason(for day: CivilDate, today: CivilDate) -> String?
    /// Forecasts for the places (rounded coordinates) covering every day from `from` through `through`,
    /// with one request per batch (never one per day). Returns one answer per place, in order.
    func forecasts(for places: [Coordinate], from: CivilDate, through: CivilDate, query: ForecastQuery) -> [PlaceAnswer]
}
