import Fetch
import Foundation
import Pipeline

/// `type: forecast`: attaches a daily weather forecast to every day entry (put it after `split`).
///
/// Day entries are held until the stage finishes (or `buffer_limit` entries are waiting), so each place is
/// asked once for the whole range of its days; places are batched into one request per `batch_size` places.
/// A day with no forecast gets `.missing(reason:)`: "past", "beyond-horizon", "no-location" or "unavailable".
/// Missing forecasts are not rejected records: every entry goes on to the sinks.
// @unchecked Sendable: the held entries, places and candidate days change as batches pass, on the runner's thread
// only, one run at a time (the `Stage` contract); the HTTP client is Sendable.
package final class ForecastStage: Stage, @unchecked Sendable {
    package static let providers = ["open-meteo", "metno", "file"]

    package static let descriptor = StageDescriptor(
        type: "forecast",
        kind: .stage,
        summary: "Attach the daily weather forecast for each day entry's place (Open-Meteo, MET Norway, or a saved file)",
        options: Options.self,
        make: { options, context in try ForecastStage(options: options, context: context) }
    )

    package let providerName: String
    package let units: ForecastUnits
    private let provider: ForecastProvider
    /// The forecast file of the `file` provider without geocoding: the stage's only outside data (`RunStamp`).
    private var forecastFile: String?
    private let resolver: PlaceResolver
    private let bufferLimit: Int
    private var buffer: [DayEntry] = []
    /// The own place (GEO, else LOCATION geocoded) of each buffered entry.
    private var ownPlaces: [Coordinate?] = []
    /// Days that had entries (the days of the headers when the pipeline has no window).
    private var seenDays = Set<CivilDate>()
    /// Without a pipeline location: each day's candidate entry for the day's place.
    private var candidates: [CivilDate: Candidate] = [:]
    private let entryDistanceKm: Double
    private var warnedNotSplit = false
    private var warnedCache = false
    /// The HTTP client of the stage (nil for the file provider), for tests and reports.
    package let fetcher: HTTPFetcher?

    package var produces: BatchContent { .days }

    init(options: Options, context: OptionContext<Options>) throws {
        let provider = options.provider
        providerName = provider
        units = options.units
        let geocode = options.geocode ?? (provider != "file")
        bufferLimit = options.bufferLimit
        entryDistanceKm = options.entryDistanceKm
        let apikey = options.apikey?.reveal()
        // Timeouts, retries, politeness and User-Agent: the client option group.
        let settings = HTTPSettings(options.client)

        let environment = context.environment
        let cachePath = options.cache?.resolved ?? HTTPCache.defaultPath(environment: environment.environment)
        let needsNetwork = provider != "file" || geocode
        // The pipeline's client's sibling: the feeds and the forecast take turns at a host they both ask.
        let fetcher = needsNetwork ? environment.httpClient(cachePath: cachePath, settings: settings) : nil
        self.fetcher = fetcher

        switch provider {
        case "file":
            let path = options.path ?? OptionPath()
            if !geocode { forecastFile = path.resolved }
            do {
                self.provider = try FileProvider(path: path.resolved, label: path.written, units: units, maximumDistanceKm: options.maxDistanceKm)
            } catch {
                throw context.error(\.path, "\(CalpipeError(error))")
            }
        case "metno":
            self.provider = MetNoProvider(baseURL: options.baseURL ?? "https://api.met.no", ttl: options.ttl, fetcher: fetcher!)
        default:
            let commercial = apikey != nil
            self.provider = OpenMeteoProvider(
                baseURL: options.baseURL ?? (commercial ? "https://customer-api.open-meteo.com" : "https://api.open-meteo.com"),
                archiveURL: options.archiveURL ?? (commercial ? "https://customer-archive-api.open-meteo.com" : "https://archive-api.open-meteo.com"),
                apikey: apikey, historical: options.historical, ttl: options.ttl, placesPerRequest: options.batchSize, fetcher: fetcher!)
        }
        let geocoder = geocode ? fetcher.map { Geocoder(baseURL: options.geocodingURL, fetcher: $0) } : nil
        resolver = PlaceResolver(geocoder: geocoder, defaultPlace: try PlaceResolver.defaultPlace(environment.location, file: environment.pipelineFile))
    }

    package func process(_ batch: Batch, context: RunContext) throws -> Batch {
        if batch.days.isEmpty {
            if !batch.content.contains(.days), !batch.isEmpty, !warnedNotSplit {
                warnedNotSplit = true
                context.warn("the forecast stage enriches day entries; put it after {\"type\": \"split\"}")
            }
            return batch
        }
        let hasPipelinePlace = resolver.pipelinePlace(context: context) != nil
        for entry in batch.days {
            let own = resolver.ownPlace(for: entry.event, context: context)
            // Handed on later, maybe in another batch: without its link to an occurrence (`Batch`'s contract).
            var entry = entry
            entry.occurrenceIndex = nil
            buffer.append(entry)
            ownPlaces.append(own)
            seenDays.insert(entry.day)
            if let own, !hasPipelinePlace { noteCandidate(entry, place: own) }
        }
        var out = batch
        out.days = []
        if buffer.count >= bufferLimit {
            out.days = try enrich(context: context, headers: false).entries
        }
        return out
    }

    package func finish(context: RunContext, emit: (Batch) throws -> Void) throws {
        let result = try enrich(context: context, headers: true)
        var batch = Batch(days: result.entries, content: .days)
        batch.agendaDays = result.headers
        if !batch.isEmpty { try emit(batch) }
    }

    /// The day's first timed entry with a place (else its first all-day one), in agenda order.
    private func noteCandidate(_ entry: DayEntry, place: Coordinate) {
        let key = Candidate.Key(timed: !entry.allDay, agenda: entry.agendaKey)
        if let known = candidates[entry.day], !key.isBefore(known.key) { return }
        candidates[entry.day] = Candidate(key: key, place: place, name: entry.event.location)
    }

    /// The day's place and its name: the pipeline's location, else the day's candidate entry's place.
    private func dayPlace(_ day: CivilDate, context: RunContext) -> (place: Coordinate, name: String?)? {
        if let p = resolver.pipelinePlace(context: context) { return (p, resolver.pipelinePlaceName) }
        return candidates[day].map { ($0.place, $0.name) }
    }

    /// What one forecast is for: a buffered entry (its own place) or a day header.
    private enum Target: Hashable {
        case entry(Int)
        case day(CivilDate)
    }

    /// Rounds to two decimals (about 1 km).
    static func rounded(_ c: Coordinate) -> Coordinate {
        Coordinate(latitude: (c.latitude * 100).rounded() / 100, longitude: (c.longitude * 100).rounded() / 100)
    }

    /// "52.52,13.41" for messages.
    static func text(_ c: Coordinate) -> String {
        OpenMeteoProvider.coordinateText(c.latitude) + "," + OpenMeteoProvider.coordinateText(c.longitude)
    }

    /// Gives the buffered entries that are far from their day's place their own forecast (the others none:
    /// the day's weather is theirs) and, with `headers`, makes one header per day with the day's weather:
    /// every day of the window, else every day that had entries.
    private func enrich(context: RunContext, headers: Bool) throws -> (entries: [DayEntry], headers: [AgendaDay]) {
        var out = buffer
        let own = ownPlaces
        buffer = []
        ownPlaces = []
        let today = context.environment.today
        var wanted: [Coordinate: [Target]] = [:]
        var missing: [String: Int] = [:]
        var weather: [CivilDate: DayWeather] = [:]
        var placeNames: [CivilDate: String] = [:]
        for i in out.indices {
            out[i].forecast = nil
            guard let place = own[i] else { continue }
            let day = out[i].day
            if let shared = dayPlace(day, context: context), Self.distanceKm(place, shared.place) <= entryDistanceKm { continue }
            if let reason = provider.missingReason(for: day, today: today) {
                out[i].forecast = .missing(reason: reason)
                missing[reason, default: 0] += 1
                continue
            }
            wanted[place, default: []].append(.entry(i))
        }
        var days: [CivilDate] = []
        if headers {
            if let window = context.window {
                days = (window.from.daysSinceEpoch..<window.to.daysSinceEpoch).map(CivilDate.init(daysSinceEpoch:))
            } else {
                days = seenDays.sorted()
            }
            for day in days {
                guard let place = dayPlace(day, context: context) else {
                    weather[day] = DayWeather(result: .missing(reason: "no-location"))
                    missing["no-location", default: 0] += 1
                    continue
                }
                placeNames[day] = place.name
                if let reason = provider.missingReason(for: day, today: today) {
                    weather[day] = DayWeather(result: .missing(reason: reason), placeName: place.name)
                    missing[reason, default: 0] += 1
                    continue
                }
                wanted[place.place, default: []].append(.day(day))
            }
        }
        func dayOf(_ target: Target) -> CivilDate {
            switch target {
            case .entry(let i): return out[i].day
            case .day(let d): return d
            }
        }
        let places = wanted.keys.sorted { ($0.latitude, $0.longitude) < ($1.latitude, $1.longitude) }
        let query = ForecastQuery(zone: context.zone, today: today, units: units, context: context)
        var counts: [ForecastOrigin: Int] = [:]
        var start = 0
        while start < places.count {
            try context.checkCancellation()
            let chunk = Array(places[start..<min(places.count, start + provider.placesPerRequest)])
            start += chunk.count
            let chunkDays = chunk.flatMap { wanted[$0]!.map(dayOf) }
            let from = chunkDays.min()!, through = chunkDays.max()!
            let answers = provider.forecasts(for: chunk, from: from, through: through, query: query)
            for (place, answer) in zip(chunk, answers) {
                if let error = answer.error {
                    let ownDays = wanted[place]!.map(dayOf)
                    context.warn("forecast for \(Self.text(place)) (\(ownDays.min()!.iso8601) to \(ownDays.max()!.iso8601)): \(CalpipeError(error))")
                }
                if case .stale(let why) = answer.origin, answer.error == nil {
                    context.warn("forecast for \(Self.text(place)): \(why); using the cached forecast")
                }
                for target in wanted[place]! {
                    let day = dayOf(target)
                    let result: ForecastResult
                    if let forecast = answer.days[day] {
                        result = .forecast(forecast, place: place)
                        counts[answer.origin.counterKey, default: 0] += 1
                    } else {
                        result = .missing(reason: "unavailable")
                        missing["unavailable", default: 0] += 1
                    }
                    switch target {
                    case .entry(let i): out[i].forecast = result
                    case .day(let d): weather[d] = DayWeather(result: result, placeName: placeNames[d])
                    }
                }
            }
        }
        let labels: [(ForecastOrigin, String)] = [(.fetched, "forecasts fetched"), (.cache, "forecasts from cache"),
                                                  (.stale(""), "forecasts stale"), (.file, "forecasts from file")]
        for (origin, label) in labels where counts[origin, default: 0] > 0 { context.report.count(label, by: counts[origin]!) }
        for reason in ["past", "beyond-horizon", "no-location", "unavailable"] where missing[reason, default: 0] > 0 {
            context.report.count("forecasts missing (\(reason))", by: missing[reason]!)
        }
        if !warnedCache, let problem = fetcher?.cacheProblem {
            warnedCache = true
            context.warn(problem)
        }
        let made = days.map { AgendaDay(date: $0, weather: weather[$0]) }
        return (out, made)
    }

    /// Great-circle distance in km (haversine, mean earth radius).
    static func distanceKm(_ a: Coordinate, _ b: Coordinate) -> Double {
        FileProvider.distanceKm(a, b)
    }
}

/// The entry a day without a pipeline location takes its place from: its first timed entry with a place,
/// else its first all-day entry with one (agenda order).
private struct Candidate {
    /// Timed entries first, then agenda order (`AgendaKey`).
    struct Key {
        var timed: Bool
        var agenda: AgendaKey<String>

        func isBefore(_ other: Key) -> Bool {
            timed != other.timed ? timed : agenda < other.agenda
        }
    }

    var key: Key
    var place: Coordinate
    var name: String?
}

/// With a forecast file and no geocoding the stage's output depends on its input, the day and that file only: a
/// run may keep its outputs when none of them changed. Live providers cannot tell.
extension ForecastStage: FingerprintableStage {
    package func stageFingerprint(context: RunContext) -> String? {
        guard let forecastFile else { return nil }
        return try? Fingerprint.file(atPath: forecastFile)
    }
}
