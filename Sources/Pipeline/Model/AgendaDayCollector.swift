/// Gathers what a sink receives into whole `AgendaDay`s: the day headers of `Batch.agendaDays` (their
/// weather) and the entries of `Batch.days`. For sinks whose output is small enough to hold (an HTML page,
/// a terminal listing); the JSON `days` sink streams instead and only keeps the headers.
///
///     let collector = AgendaDayCollector()
///     // write(_:context:)
///     collector.add(batch)
///     // commit(context:)
///     let days = collector.days(window: context.window)
public final class AgendaDayCollector {
    private var weather: [CivilDate: DayWeather] = [:]
    private var entries: [CivilDate: [DayEntry]] = [:]

    public init() {}

    /// Keeps the batch's day headers and entries.
    public func add(_ batch: Batch) {
        addHeaders(batch.agendaDays)
        for entry in batch.days { entries[entry.day, default: []].append(entry) }
    }

    /// Keeps the weather of day headers only (for sinks that handle entries themselves).
    public func addHeaders(_ days: [AgendaDay]) {
        for day in days {
            if let w = day.weather { weather[day.date] = w }
            if !day.entries.isEmpty { entries[day.date, default: []].append(contentsOf: day.entries) }
        }
    }

    /// The weather of a day, when a forecast stage gave it one.
    public func weather(on date: CivilDate) -> DayWeather? { weather[date] }

    /// Every day of the window (empty days included; only those days), or without a window every day that
    /// has entries or weather, in date order; entries in agenda order.
    public func days(window: Window?) -> [AgendaDay] {
        var dates: [CivilDate]
        if let window {
            dates = (window.from.daysSinceEpoch..<window.to.daysSinceEpoch).map(CivilDate.init(daysSinceEpoch:))
        } else {
            dates = Array(Set(entries.keys).union(weather.keys)).sorted()
        }
        dates.sort()
        return dates.map { date in
            AgendaDay(date: date, weather: weather[date], entries: (entries[date] ?? []).sorted(by: DayEntry.agendaOrder))
        }
    }
}
