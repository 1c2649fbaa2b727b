/// One day of an agenda as an app renders it: a header with the day's weather, then the day's entries.
///
/// How it travels (docs/agenda-days.md): day entries flow through batches as `Batch.days`; the forecast
/// stage adds one `AgendaDay` per day of the window to `Batch.agendaDays`, with its `weather` and no
/// `entries` (a day header: the entries stay in the `days` stream, so sinks that sort or spool entries keep
/// doing so). A sink that wants whole days (the HTML page, `calpipe query`) feeds every batch to an
/// `AgendaDayCollector` and takes `days(window:)` at commit: every day of the window, empty days included,
/// each with its weather (nil when no forecast stage ran) and its entries in agenda order.
public struct AgendaDay: Hashable, Sendable {
    /// The day, in the pipeline's zone.
    public var date: CivilDate
    /// The weather of the day's place; nil when no forecast stage ran.
    public var weather: DayWeather?
    /// The day's entries in agenda order (`DayEntry.agendaOrder`); empty in a day header.
    public var entries: [DayEntry]

    public init(date: CivilDate, weather: DayWeather? = nil, entries: [DayEntry] = []) {
        self.date = date
        self.weather = weather
        self.entries = entries
    }
}

/// The weather of one day at the day's place: the pipeline's `location`, else the place of the day's first
/// timed entry that has one. Summary, icon and precipitation all come from the one daily record.
public struct DayWeather: Hashable, Sendable {
    /// The day's forecast and the (rounded) place it is for, or why there is none
    /// ("past", "beyond-horizon", "no-location", "unavailable").
    public var result: ForecastResult
    /// The place's name when it has one: the pipeline's `location.name`, or the LOCATION text of the entry
    /// the place was taken from.
    public var placeName: String?

    public init(result: ForecastResult, placeName: String? = nil) {
        self.result = result
        self.placeName = placeName
    }

    public var isAvailable: Bool {
        if case .forecast = result { return true }
        return false
    }

    /// The forecast when there is one.
    public var forecast: DailyForecast? {
        if case .forecast(let f, _) = result { return f }
        return nil
    }

    /// The (rounded) coordinate the forecast is for.
    public var place: Coordinate? {
        if case .forecast(_, let p) = result { return p }
        return nil
    }

    /// Why there is no forecast, when there is none.
    public var reason: String? {
        if case .missing(let r) = result { return r }
        return nil
    }
}
