import Fetch
import Foundation
import Pipeline

/// `"provider": "open-meteo"` (the default): Open-Meteo's forecast API, free for non-commercial use, no key,
/// global daily aggregates with WMO weather codes. Several places go into one request as comma-separated
/// coordinates; the answer is then an array with one object per place. The forecast host serves from 92 days
/// back to 15 days ahead; with `"historical": true` older days come from the archive host.
/// Data by Open-Meteo.com, CC BY 4.0.
final class OpenMeteoProvider: ForecastProvider {
    let name = "open-meteo"
    let placesPerRequest: Int
    private let baseURL: String
    private let archiveURL: String
    private let apikey: String?
    private let historical: Bool
    private let ttl: Double
    private let fetcher: HTTPFetcher

    /// Days after today the forecast host serves (16 days including today).
    static let futureDays = 15
    /// Days before today the forecast host still serves; older ones need the archive.
    static let recentPastDays = 92

    static let dailyVariables = ["weather_code", "temperature_2m_max", "temperature_2m_min", "precipitation_probability_max",
                                 "precipitation_sum", "wind_speed_10m_max"]
    /// The archive has no precipitation probability.
    static let archiveVariables = ["weather_code", "temperature_2m_max", "temperature_2m_min", "precipitation_sum", "wind_speed_10m_max"]

    init(baseURL: String, archiveURL: String, apikey: String?, historical: Bool, ttl: Double, placesPerRequest: Int, fetcher: HTTPFetcher) {
        self.baseURL = Self.trimmed(baseURL)
        self.archiveURL = Self.trimmed(archiveURL)
        self.apikey = apikey
        self.historical = historical
        self.ttl = ttl
        self.placesPerRequest = placesPerRequest
        self.fetcher = fetcher
    }

    static func trimmed(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    func missingReason(for day: CivilDate, today: CivilDate) -> String? {
        if day > today.adding(days: Self.futureDays) { return "beyond-horizon" }
        if day < today && !historical { return "past" }
        return nil
    }

    func forecasts(for places: [Coordinate], from: CivilDate, through: CivilDate, query: ForecastQuery) -> [PlaceAnswer] {
        let recentStart = query.today.adding(days: -Self.recentPastDays)
        var parts: [(endpoint: String, variables: [String], from: CivilDate, through: CivilDate)] = []
        if from < recentStart {
            parts.append((archiveURL + "/v1/archive", Self.archiveVariables, from, min(through, recentStart.adding(days: -1))))
        }
        if through >= recentStart {
            parts.append((baseURL + "/v1/forecast", Self.dailyVariables, max(from, recentStart), through))
        }
        var merged = places.map { _ in PlaceAnswer(days: [:], origin: .fetched) }
        for part in parts {
            let answers = request(endpoint: part.endpoint, variables: part.variables, places: places, from: part.from, through: part.through, query: query)
            for i in merged.indices {
                merged[i].days.merge(answers[i].days) { a, _ in a }
                if merged[i].error == nil { merged[i].error = answers[i].error }
                merged[i].origin = Self.worse(merged[i].origin, answers[i].origin)
            }
        }
        return merged
    }

    /// The less fresh of two origins, for a place answered by two requests.
    static func worse(_ a: ForecastOrigin, _ b: ForecastOrigin) -> ForecastOrigin {
        if case .stale = a { return a }
        if case .stale = b { return b }
        if a == .cache || b == .cache { return .cache }
        return a
    }

    /// The days with `fetchedAt` set to when the answer was made: a cached answer's download time, else the
    /// answer's HTTP `Date`, else now.
    static func stamped(_ days: [CivilDate: DailyForecast], result: FetchResult) -> [CivilDate: DailyForecast] {
        let date: Int64
        if result.origin.isFromCache, let stored = result.storedAt {
            date = Int64(stored.rounded(.down))
        } else if let header = result.response.header("date").flatMap(HTTPDate.parse) {
            date = header
        } else {
            date = Int64(Date().timeIntervalSince1970.rounded(.down))
        }
        return days.mapValues { day in
            var d = day
            d.fetchedAt = date
            return d
        }
    }

    static func coordinateText(_ value: Double) -> String {
        String(format: "%.2f", value)
    }

    func url(endpoint: String, variables: [String], places: [Coordinate], from: CivilDate, through: CivilDate, query: ForecastQuery) -> String {
        var items = [
            URLQueryItem(name: "latitude", value: places.map { Self.coordinateText($0.latitude) }.joined(separator: ",")),
            URLQueryItem(name: "longitude", value: places.map { Self.coordinateText($0.longitude) }.joined(separator: ",")),
            URLQueryItem(name: "daily", value: variables.joined(separator: ",")),
            URLQueryItem(name: "timezone", value: query.zone.identifier),
            URLQueryItem(name: "start_date", value: from.iso8601),
            URLQueryItem(name: "end_date", value: through.iso8601),
        ]
        if query.units == .imperial {
            items += [URLQueryItem(name: "temperature_unit", value: "fahrenheit"), URLQueryItem(name: "wind_speed_unit", value: "mph"),
                      URLQueryItem(name: "precipitation_unit", value: "inch")]
        }
        if let apikey { items.append(URLQueryItem(name: "apikey", value: apikey)) }
        var components = URLComponents()
        components.queryItems = items
        // "," is allowed in a query; "/" in zone names too, but encode it as browsers do for stable keys.
        let queryText = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "/", with: "%2F")
        return endpoint + "?" + queryText
    }

    /// Open-Meteo answers 429 with `{"error": true, "reason": "Daily API request limit exceeded. ..."}` once
    /// a day's (or an hour's) requests are spent: waiting inside one run cannot help.
    static let limitAnswer: @Sendable (HTTPResponse) -> String? = { response in
        guard response.status == 429, let json = try? JSONParser.parse(bytes: response.body),
              let reason = OpenMeteoDocument.errorReason(json) else { return nil }
        let lower = reason.lowercased()
        return lower.contains("daily") || lower.contains("hourly") ? reason : nil
    }

    private func request(endpoint: String, variables: [String], places: [Coordinate], from: CivilDate, through: CivilDate, query: ForecastQuery) -> [PlaceAnswer] {
        let address = url(endpoint: endpoint, variables: variables, places: places, from: from, through: through, query: query)
        let all = { (message: String) in places.map { _ in PlaceAnswer.failed(message) } }
        let result: FetchResult
        do {
            result = try fetcher.get(address, policy: CachePolicy(defaultTTL: ttl, limitAnswer: Self.limitAnswer, isCancelled: query.isCancelled))
        } catch {
            return all("\(name): \(CalpipeError(error))")
        }
        let origin: ForecastOrigin
        switch result.origin {
        case .network: origin = .fetched; query.context.report.count("forecast requests")
        case .revalidated: origin = .cache; query.context.report.count("forecast requests")
        case .cache: origin = .cache
        case .stale(let why): origin = .stale(why)
        }
        guard result.response.status == 200 else {
            let reason = (try? JSONParser.parse(bytes: result.response.body)).flatMap(OpenMeteoDocument.errorReason) ?? result.response.bodyPreview
            return all("\(name) answered HTTP \(result.response.status): \(reason)")
        }
        let objects: [JSONValue]
        do {
            objects = try OpenMeteoDocument.places(result.response.body)
        } catch {
            fetcher.forget(address)
            return all("\(name): \(CalpipeError(error))")
        }
        guard objects.count == places.count else {
            fetcher.forget(address)
            return all("\(name): the answer has \(objects.count) places for the \(places.count) asked for")
        }
        return objects.map { object in
            do {
                let place = try OpenMeteoDocument.place(object, units: query.units, provider: name)
                return PlaceAnswer(days: Self.stamped(place.days, result: result), origin: origin)
            } catch {
                return PlaceAnswer(days: [:], origin: origin, error: "\(name): \(CalpipeError(error))")
            }
        }
    }
}
