import Pipeline

/// "metric" (°C, mm, km/h) or "imperial" (°F, inch, mph).
public enum ForecastUnits: String, Sendable, CaseIterable {
    case metric, imperial
}

/// What one forecast request is about, besides its places and days.
public struct ForecastQuery {
    /// The pipeline's zone: daily values are for its local days.
    public var zone: Zone
    public var today: CivilDate
    public var units: ForecastUnits
    public var context: RunContext
}

/// Where a place's forecast came from, for the run summary.
public enum ForecastOrigin: Hashable, Sendable {
    /// Downloaded during this run.
    case fetched
    /// Served from the HTTP cache (fresh, or revalidated with 304).
    case cache
    /// The service failed; an expired cached answer was used. The text says why.
    case stale(String)
    /// Read from a saved response file.
    case file
}

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

/// A source of daily forecasts: one file per provider under Providers/, chosen by the stage's `"provider"`.
public protocol ForecastProvider: AnyObject {
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
