import Pipeline

/// Reads Open-Meteo's forecast and archive answers: one object per place (an array of them when several
/// places were asked for), each with `latitude`, `longitude`, `daily_units` and `daily` (`time` plus one
/// array per variable, values possibly null). Errors come as `{"error": true, "reason": "..."}`.
/// Values are converted to the wanted units when the answer is in others (a saved metric file read as imperial).
enum OpenMeteoDocument {
    struct Place {
        var coordinate: Coordinate?
        var days: [CivilDate: DailyForecast]
    }

    /// The place objects of an answer body. Throws for malformed JSON or an error object.
    static func places(_ body: [UInt8]) throws -> [JSONValue] {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes: body)
        } catch let e as JSONSyntaxError {
            throw CalpipeError("malformed JSON (\(e))")
        }
        if let reason = errorReason(json) { throw CalpipeError(reason) }
        switch json {
        case .array(let items): return items
        case .object: return [json]
        default: throw CalpipeError("expected a JSON object or array, got \(json.kindDescription)")
        }
    }

    /// The `reason` of an `{"error": true, "reason": ...}` answer.
    static func errorReason(_ json: JSONValue) -> String? {
        guard let object = json.objectValue, object["error"]?.boolValue == true else { return nil }
        return object["reason"]?.stringValue ?? "the service reported an error without a reason"
    }

    /// Reads one place object.
    static func place(_ value: JSONValue, units: ForecastUnits, provider: String) throws -> Place {
        guard let object = value.objectValue else { throw CalpipeError("expected an object per place, got \(value.kindDescription)") }
        if let reason = errorReason(value) { throw CalpipeError(reason) }
        var coordinate: Coordinate?
        if let lat = object["latitude"]?.numberValue, let lon = object["longitude"]?.numberValue { coordinate = Coordinate(latitude: lat, longitude: lon) }
        guard let daily = object["daily"]?.objectValue else { throw CalpipeError("no \"daily\" object in the answer") }
        guard let times = daily["time"]?.arrayValue else { throw CalpipeError("no \"daily.time\" array in the answer") }
        let dailyUnits = object["daily_units"]?.objectValue
        var dates: [CivilDate] = []
        for (i, t) in times.enumerated() {
            guard let text = t.stringValue, let date = ISODate.parseDate(text) else {
                throw CalpipeError("daily.time[\(i)] is not a date (\(t.preview))")
            }
            dates.append(date)
        }
        func series(_ names: [String]) throws -> (values: [Double?], unit: String?)? {
            for name in names {
                guard let raw = daily[name] else { continue }
                guard let items = raw.arrayValue else { throw CalpipeError("daily.\(name) is not an array") }
                guard items.count == dates.count else {
                    throw CalpipeError("daily.\(name) has \(items.count) values for \(dates.count) days")
                }
                let values = try items.enumerated().map { (i, item) -> Double? in
                    if item.isNull { return nil }
                    guard let n = item.numberValue else { throw CalpipeError("daily.\(name)[\(i)] is not a number (\(item.preview))") }
                    return n
                }
                return (values, dailyUnits?[name]?.stringValue)
            }
            return nil
        }
        let code = try series(["weather_code", "weathercode"])
        let tMax = try series(["temperature_2m_max"])
        let tMin = try series(["temperature_2m_min"])
        let probability = try series(["precipitation_probability_max"])
        let amount = try series(["precipitation_sum"])
        let wind = try series(["wind_speed_10m_max", "windspeed_10m_max"])
        var days: [CivilDate: DailyForecast] = [:]
        for (i, date) in dates.enumerated() {
            // A day whose values are all null (no model covers it) has no forecast: it is left out.
            let all = [code, tMax, tMin, probability, amount, wind].compactMap { $0?.values[i] }
            if all.isEmpty { continue }
            let weatherCode = code?.values[i].map { Int($0) }
            days[date] = DailyForecast(
                weatherCode: weatherCode,
                summary: weatherCode.flatMap(WeatherCode.summary),
                temperatureMax: tMax?.values[i].map { UnitConversion.temperature($0, from: tMax?.unit, to: units) },
                temperatureMin: tMin?.values[i].map { UnitConversion.temperature($0, from: tMin?.unit, to: units) },
                precipitationProbability: probability?.values[i],
                precipitationAmount: amount?.values[i].map { UnitConversion.precipitation($0, from: amount?.unit, to: units) },
                windSpeedMax: wind?.values[i].map { UnitConversion.windSpeed($0, from: wind?.unit, to: units) },
                units: units.rawValue,
                provider: provider)
        }
        return Place(coordinate: coordinate, days: days)
    }
}
