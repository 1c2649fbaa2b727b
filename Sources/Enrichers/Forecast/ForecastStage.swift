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
        options: [
            OptionDoc("provider", "string", "where forecasts come from", values: providers, default: "open-meteo"),
            OptionDoc("path", "path", "file provider: a saved Open-Meteo answer (JSON), relative to the pipeline file"),
            OptionDoc("units", "string", "metric (°C, mm, km/h) or imperial (°F, inch, mph)", values: ForecastUnits.allCases.map(\.rawValue), default: "metric"),
            OptionDoc("historical", "boolean", "open-meteo: ask for past days (the archive for days older than 92 days) instead of marking them \"past\"", default: "true"),
            OptionDoc("geocode", "boolean", "look up event LOCATION texts and a location {\"name\"} with Open-Meteo's geocoding API", default: "true (false for the file provider)"),
            OptionDoc("cache", "path", "the HTTP cache file (SQLite); else $CALPIPE_CACHE, else $XDG_CACHE_HOME/calpipe/http-cache.sqlite, else ~/.cache/calpipe/http-cache.sqlite"),
            OptionDoc("ttl", "number", "seconds a forecast stays fresh when the service sends no Cache-Control or Expires", default: "3600"),
            OptionDoc("base_url", "url", "the forecast service's address", default: "https://api.open-meteo.com (metno: https://api.met.no)"),
            OptionDoc("archive_url", "url", "open-meteo: the archive's address, for historical days", default: "https://archive-api.open-meteo.com"),
            OptionDoc("geocoding_url", "url", "the geocoding service's address", default: "https://geocoding-api.open-meteo.com"),
            OptionDoc("apikey", "string", "open-meteo: key for the commercial service (then the customer- hosts are the default)"),
        ] + HTTPOptions.client(userAgent: "User-Agent sent with every request; metno requires one with contact information (e-mail or URL)") + [
            OptionDoc("batch_size", "integer", "places per request (open-meteo)", default: "10"),
            OptionDoc("max_distance_km", "number", "file provider: how far a place may be from the nearest place in the file", default: "50"),
            OptionDoc("buffer_limit", "integer", "day entries held before forecasts are fetched for them", default: "50000"),
            OptionDoc("entry_distance_km", "number", "an entry gets a forecast of its own only when its place is farther than this from its day's place", default: "25"),
        ],
        make: { options in try ForecastStage(options: options) }
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

    init(options: PluginOptions) throws {
        let provider = options.choice("provider", Self.providers, default: "open-meteo")
        providerName = provider
        units = ForecastUnits(rawValue: options.choice("units", ForecastUnits.allCases.map(\.rawValue), default: "metric")) ?? .metric
        let historical = options.bool("historical", default: true)
        let geocode = options.bool("geocode", default: provider != "file")
        let ttl = options.number("ttl", default: 3600, range: 0...31_536_000) ?? 3600
        bufferLimit = options.integer("buffer_limit", default: 50_000, range: 1...10_000_000)
        let batchSize = options.integer("batch_size", default: 10, range: 1...100)
        let maxDistance = options.number("max_distance_km", default: 50, range: 0...20_000) ?? 50
        entryDistanceKm = options.number("entry_distance_km", default: 25, range: 0...20_000) ?? 25
        let apikey = options.string("apikey")

        // Timeouts, retries, politeness and User-Agent: the client option group, declared and read once.
        let settings = HTTPSettings(HTTPOptions.clientOptions(options))

        // Options that only one provider reads are an error elsewhere, so a typo'd pipeline does not run half-configured.
        let onlyFor: [(key: String, provider: String)] = [("path", "file"), ("max_distance_km", "file"), ("historical", "open-meteo"),
                                                           ("archive_url", "open-meteo"), ("apikey", "open-meteo")]
        for (key, owner) in onlyFor where options.contains(key) && provider != owner {
            options.report(key, "only the \(owner) provider reads this option (provider is \"\(provider)\")")
        }

        let environment = options.environment
        let cachePath = options.path("cache") ?? HTTPCache.defaultPath(environment: environment.environment)
        let needsNetwork = provider != "file" || geocode
        // The pipeline's client's sibling: the feeds and the forecast take turns at a host they both ask.
        let fetcher = needsNetwork ? environment.httpClient(cachePath: cachePath, settings: settings) : nil
        self.fetcher = fetcher

        switch provider {
        case "file":
            guard let path = options.path("path", required: true) else { throw CalpipeError.optionsRejected }
            if !geocode { forecastFile = path }
            do {
                self.provider = try FileProvider(path: path, label: options.string("path") ?? path, units: units, maximumDistanceKm: maxDistance)
            } catch {
                throw CalpipeError.config(file: environment.pipelineFile, path: options.keyPath("path"), "\(CalpipeError(error))")
            }
        case "metno":
            guard MetNoProvider.hasContact(settings.userAgent), options.contains("user_agent") else {
                throw CalpipeError.config(file: environment.pipelineFile, path: options.keyPath("user_agent"), "MET Norway requires an identifying User-Agent with contact information (an e-mail address or a URL), e.g. \"myagenda/1.0 you@example.com\"")
            }
            self.provider = MetNoProvider(baseURL: options.string("base_url") ?? "https://api.met.no", ttl: ttl, fetcher: fetcher!)
        default:
            let commercial = apikey != nil
            self.provider = OpenMeteoProvider(
                baseURL: options.string("base_url") ?? (commercial ? "https://customer-api.open-meteo.com" : "https://api.open-meteo.com"),
                archiveURL: options.string("archive_url") ?? (commercial ? "https://customer-archive-api.open-meteo.com" : "https://archive-api.open-meteo.com"),
                apikey: apikey, historical: historical, ttl: ttl, placesPerRequest: batchSize, fetcher: fetcher!)
        }
        for key in ["base_url", "archive_url", "geocoding_url"] {
            if let url = options.string(key), NormalizedURL(url) == nil {
                options.report(key, "expected an http:// or https:// address, got \"\(url)\"")
            }
        }
        let geocoder = geocode ? fetcher.map { Geocoder(baseURL: options.string("geocoding_url") ?? "https://geocoding-api.open-meteo.com", fetcher: $0) } : nil
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
