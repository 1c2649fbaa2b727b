import Exporters
import Pipeline

/// A forecast codes as the members of the days document's weather object that are the forecast's
/// (docs/json-format.md, "Weather"): `provider`, `weather_code`, `icon`, `summary`, `temperature_max`,
/// `temperature_min`, `precipitation_probability`, `precipitation`, `wind_speed_max`, `units`, `fetched_at`. The
/// place (`latitude`, `longitude`, `place`) belongs to the day, not to the forecast. `icon` follows from the
/// code and is not read back.
extension DailyForecast: Codable {
    public func encode(to encoder: any Encoder) throws {
        try ModelJSON.encode(JSONRecords.forecast(self), of: self, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        let object = try ModelJSON.object("a forecast object", DailyForecast.self, from: decoder)
        self = try ModelJSON.reading(decoder) { () throws(CalpipeError) in try DailyForecast(json: object) }
    }

    /// The forecast of a weather object (or of `DailyForecast`'s own JSON).
    init(json o: JSONObject) throws(CalpipeError) {
        func number(_ key: String) throws(CalpipeError) -> Double? {
            guard let v = o[key], !v.isNull else { return nil }
            guard case .number(let n) = v else { throw CalpipeError.rejected("expected a number, got \(v.kindDescription)", path: key) }
            return n
        }
        func text(_ key: String) throws(CalpipeError) -> String? {
            guard let v = o[key], !v.isNull else { return nil }
            guard case .string(let s) = v else { throw CalpipeError.rejected("expected a string, got \(v.kindDescription)", path: key) }
            return s
        }
        guard let provider = try text("provider") else { throw CalpipeError.rejected("missing (the forecast's provider)", path: "provider") }
        var fetchedAt: Int64?
        if let t = try text("fetched_at") {
            guard case .instant(let utc, _)? = ISODate.parse(t) else {
                throw CalpipeError.rejected("invalid time \"\(t)\" (expected UTC such as 2026-11-23T06:00:00Z)", path: "fetched_at")
            }
            fetchedAt = utc
        }
        let code = try number("weather_code")
        if let code, code.rounded() != code || abs(code) > 1e6 { throw CalpipeError.rejected("expected a whole WMO code, got \(code)", path: "weather_code") }
        self.init(weatherCode: code.map { Int($0) }, summary: try text("summary"), temperatureMax: try number("temperature_max"),
                  temperatureMin: try number("temperature_min"), precipitationProbability: try number("precipitation_probability"),
                  precipitationAmount: try number("precipitation"), windSpeedMax: try number("wind_speed_max"),
                  units: try text("units") ?? "metric", provider: provider, fetchedAt: fetchedAt)
    }
}
