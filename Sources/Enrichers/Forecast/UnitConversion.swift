/// Converts values between the units services use and the two calpipe offers, rounding to one decimal
/// (two for inches) so converted numbers stay readable and deterministic.
enum UnitConversion {
    static func temperature(_ value: Double, from unit: String?, to units: ForecastUnits) -> Double {
        let fahrenheitIn = unit.map { $0.contains("F") } ?? false
        switch (fahrenheitIn, units) {
        case (false, .imperial): return round1(value * 9 / 5 + 32)
        case (true, .metric): return round1((value - 32) * 5 / 9)
        default: return value
        }
    }

    static func precipitation(_ value: Double, from unit: String?, to units: ForecastUnits) -> Double {
        let inchIn = unit.map { $0.lowercased().hasPrefix("inch") || $0 == "in" } ?? false
        switch (inchIn, units) {
        case (false, .imperial): return round2(value / 25.4)
        case (true, .metric): return round1(value * 25.4)
        default: return value
        }
    }

    /// Wind in km/h (metric) or mph (imperial), from km/h, m/s, mph or knots.
    static func windSpeed(_ value: Double, from unit: String?, to units: ForecastUnits) -> Double {
        let kmh: Double
        switch unit?.lowercased() {
        case "m/s"?, "ms"?: kmh = value * 3.6
        case "mph"?: kmh = value * 1.609344
        case "kn"?, "kt"?, "knots"?: kmh = value * 1.852
        case nil: kmh = units == .imperial ? value * 1.609344 : value
        default: kmh = value
        }
        let asIs = (unit?.lowercased() == "km/h" && units == .metric) || (unit?.lowercased() == "mph" && units == .imperial)
            || (unit == nil)
        if asIs { return value }
        return units == .metric ? round1(kmh) : round1(kmh / 1.609344)
    }

    static func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }
    static func round2(_ v: Double) -> Double { (v * 100).rounded() / 100 }
}
