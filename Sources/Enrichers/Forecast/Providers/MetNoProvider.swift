import Fetch
import Foundation
import Pipeline

/// `"provider": "metno"`: MET Norway's Locationforecast 2.0 (compact), an hourly GeoJSON forecast up to nine
/// days ahead, one place per request. We aggregate it into the pipeline's local days: highest and lowest
/// air temperature, summed precipitation, strongest wind, and the most severe weather symbol (as a WMO code).
/// MET Norway's terms require an identifying User-Agent with contact information; the stage refuses to
/// run without one. Freshness comes from its Expires header; revalidation uses If-Modified-Since.
/// Data from MET Norway, CC BY 4.0.
final class MetNoProvider: ForecastProvider {
    let name = "metno"
    let placesPerRequest = 1
    private let baseURL: String
    private let ttl: Double
    private let fetcher: HTTPFetcher

    /// Today and the next eight days.
    static let futureDays = 8

    init(baseURL: String, ttl: Double, fetcher: HTTPFetcher) {
        self.baseURL = OpenMeteoProvider.trimmed(baseURL)
        self.ttl = ttl
        self.fetcher = fetcher
    }

    /// A User-Agent MET Norway accepts identifies the application and gives a way to contact its owner.
    static func hasContact(_ userAgent: String) -> Bool {
        userAgent.contains("@") || userAgent.contains("http://") || userAgent.contains("https://")
    }

    func missingReason(for day: CivilDate, today: CivilDate) -> String? {
        if day > today.adding(days: Self.futureDays) { return "beyond-horizon" }
        if day < today { return "past" }
        return nil
    }

    func url(for place: Coordinate) -> String {
        // At most four decimals, as MET Norway asks (ours are already rounded to two).
        baseURL + "/weatherapi/locationforecast/2.0/compact?lat=" + OpenMeteoProvider.coordinateText(place.latitude)
            + "&lon=" + OpenMeteoProvider.coordinateText(place.longitude)
    }

    func forecasts(for places: [Coordinate], from: CivilDate, through: CivilDate, query: ForecastQuery) -> [PlaceAnswer] {
        places.map { answer(for: $0, from: from, through: through, query: query) }
    }

    private func answer(for place: Coordinate, from: CivilDate, through: CivilDate, query: ForecastQuery) -> PlaceAnswer {
        let address = url(for: place)
        let result: FetchResult
        do {
            result = try fetcher.get(address, policy: CachePolicy(defaultTTL: ttl, isCancelled: query.isCancelled))
        } catch {
            return .failed("\(name): \(CalpipeError(error))")
        }
        let origin: ForecastOrigin
        switch result.origin {
        case .network: origin = .fetched; query.context.report.count("forecast requests")
        case .revalidated: origin = .cache; query.context.report.count("forecast requests")
        case .cache: origin = .cache
        case .stale(let why): origin = .stale(why)
        }
        guard result.response.status == 200 || result.response.status == 203 else {
            if result.response.status == 403 {
                return .failed("\(name) answered HTTP 403: the request was refused; check that user_agent identifies you with contact information")
            }
            return .failed("\(name) answered HTTP \(result.response.status): \(result.response.bodyPreview)")
        }
        do {
            let days = try Self.aggregate(result.response.body, zone: query.zone, from: from, through: through, units: query.units, provider: name)
            return PlaceAnswer(days: OpenMeteoProvider.stamped(days, result: result), origin: origin)
        } catch {
            fetcher.forget(address)
            return PlaceAnswer(days: [:], origin: origin, error: "\(name): \(CalpipeError(error))")
        }
    }

    private struct DayTotals {
        var temperatureMax: Double?
        var temperatureMin: Double?
        var precipitation: Double?
        var windMax: Double?
        var code: Int?
    }

    /// Turns the hourly (later six-hourly) series into local days of the zone.
    static func aggregate(_ body: [UInt8], zone: Zone, from: CivilDate, through: CivilDate, units: ForecastUnits, provider: String) throws -> [CivilDate: DailyForecast] {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes: body)
        } catch let e as JSONSyntaxError {
            throw CalpipeError("malformed JSON (\(e))")
        }
        guard let series = json.value(atDottedPath: "properties.timeseries")?.arrayValue else {
            throw CalpipeError("no \"properties.timeseries\" array in the answer")
        }
        let temperatureUnit = json.value(atDottedPath: "properties.meta.units.air_temperature")?.stringValue
        let windUnit = json.value(atDottedPath: "properties.meta.units.wind_speed")?.stringValue ?? "m/s"
        var totals: [CivilDate: DayTotals] = [:]
        for (i, step) in series.enumerated() {
            guard let timeText = step.value(atDottedPath: "time")?.stringValue, case .instant(let utc, _)? = ISODate.parse(timeText) else {
                throw CalpipeError("properties.timeseries[\(i)].time is not a UTC time")
            }
            let day = zone.local(fromUTC: utc).date
            guard day >= from, day <= through else { continue }
            var t = totals[day] ?? DayTotals()
            if let temperature = step.value(atDottedPath: "data.instant.details.air_temperature")?.numberValue {
                t.temperatureMax = max(t.temperatureMax ?? temperature, temperature)
                t.temperatureMin = min(t.temperatureMin ?? temperature, temperature)
            }
            if let wind = step.value(atDottedPath: "data.instant.details.wind_speed")?.numberValue {
                t.windMax = max(t.windMax ?? wind, wind)
            }
            // Precipitation and symbols are for the period after the time: the hour when there is one, else six hours.
            let period = step.value(atDottedPath: "data.next_1_hours") ?? step.value(atDottedPath: "data.next_6_hours")
            if let period {
                if let amount = period.value(atDottedPath: "details.precipitation_amount")?.numberValue {
                    t.precipitation = (t.precipitation ?? 0) + amount
                }
                if let symbol = period.value(atDottedPath: "summary.symbol_code")?.stringValue, let code = WeatherCode.fromMetNoSymbol(symbol) {
                    t.code = max(t.code ?? code, code)
                }
            }
            totals[day] = t
        }
        var days: [CivilDate: DailyForecast] = [:]
        let celsiusUnit = temperatureUnit == "fahrenheit" ? "°F" : "°C"
        for (day, t) in totals {
            days[day] = DailyForecast(
                weatherCode: t.code,
                summary: t.code.flatMap(WeatherCode.summary),
                temperatureMax: t.temperatureMax.map { UnitConversion.temperature($0, from: celsiusUnit, to: units) },
                temperatureMin: t.temperatureMin.map { UnitConversion.temperature($0, from: celsiusUnit, to: units) },
                precipitationProbability: nil,
                precipitationAmount: t.precipitation.map { UnitConversion.precipitation(UnitConversion.round1($0), from: "mm", to: units) },
                windSpeedMax: t.windMax.map { UnitConversion.windSpeed($0, from: windUnit, to: units) },
                units: units.rawValue,
                provider: provider)
        }
        return days
    }
}
