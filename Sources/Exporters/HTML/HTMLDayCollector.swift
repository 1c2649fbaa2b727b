import Pipeline

/// The entries the page shows, by day: each day keeps its first `cap` entries in agenda order (already
/// rendered to HTML) and counts the rest, so memory is bounded by the page's days, not by the feed.
struct HTMLDayCollector {
    /// Agenda order (`AgendaKey`).
    typealias Key = AgendaKey<String>

    struct Entry {
        var key: Key
        var html: String
    }

    struct Day {
        var entries: [Entry] = []
        var total = 0
        /// The forecast of the day's first entry (agenda order) that has one.
        var firstForecast: (key: Key, forecast: ForecastResult)?
    }

    let cap: Int
    private(set) var days: [Int: Day] = [:]
    /// Weather given to whole days (empty ones too), by day; preferred to the first entry's forecast.
    private var dayWeather: [Int: ForecastResult] = [:]
    private(set) var totalEntries = 0

    /// Keeps the weather of the forecast stage's day headers (`Batch.agendaDays`).
    mutating func addHeaders(_ headers: [AgendaDay]) {
        for header in headers { if let w = header.weather { setWeather(w.result, forDay: header.date.daysSinceEpoch) } }
    }

    init(cap: Int) { self.cap = cap }

    mutating func add(_ entry: DayEntry, renderer: HTMLEntryRenderer) {
        let key = entry.agendaKey
        let n = entry.day.daysSinceEpoch
        var day = days.removeValue(forKey: n) ?? Day()
        day.total += 1
        totalEntries += 1
        if let forecast = entry.forecast, day.firstForecast.map({ key < $0.key }) ?? true {
            day.firstForecast = (key, forecast)
        }
        if day.entries.count < cap || key < day.entries[day.entries.count - 1].key {
            var low = 0, high = day.entries.count
            while low < high {
                let mid = (low + high) / 2
                if day.entries[mid].key < key { low = mid + 1 } else { high = mid }
            }
            day.entries.insert(Entry(key: key, html: renderer.render(entry)), at: low)
            if day.entries.count > cap { day.entries.removeLast() }
        }
        days[n] = day
    }

    func day(_ n: Int) -> Day? { days[n] }

    /// Gives a day its own weather (a day header of the per-day model, agenda-day issue: in `write`,
    /// `for day in batch.agendaDays { if let w = day.weather { days.setWeather(w.result, forDay: day.date.daysSinceEpoch) } }`).
    mutating func setWeather(_ weather: ForecastResult, forDay n: Int) { dayWeather[n] = weather }

    /// The weather a day's header shows: the day's own weather when it was given one (`setWeather`); else,
    /// until the forecast stage gives every day its own (agenda-day issue), the forecast of the day's first
    /// entry that has one (days without entries then have none). The one place that decides.
    func weather(forDay n: Int) -> ForecastResult? { dayWeather[n] ?? days[n]?.firstForecast?.forecast }
}
