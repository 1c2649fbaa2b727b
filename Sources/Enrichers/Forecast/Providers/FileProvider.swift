import Foundation
import Pipeline

/// `"provider": "file"`: a saved Open-Meteo answer (one place object, or an array of them), for offline demos
/// and tests. Each place gets the days of the nearest place in the file within `max_distance_km`; a file
/// with a single place and no coordinates serves every place. Days before the file's first day are "past",
/// after its last day "beyond-horizon".
final class FileProvider: ForecastProvider {
    let name = "file"
    let placesPerRequest = Int.max
    let path: String
    private let places: [(coordinate: Coordinate?, days: [CivilDate: DailyForecast])]
    private let maximumDistanceKm: Double
    private let first: CivilDate?
    private let last: CivilDate?

    /// Reads and checks the file at once, so a bad file is a configuration error naming it.
    init(path: String, label: String, units: ForecastUnits, maximumDistanceKm: Double) throws {
        self.path = path
        self.maximumDistanceKm = maximumDistanceKm
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CalpipeError("cannot read the forecast file \(label): \(FileProblem.readProblem(path: path))")
        }
        let bytes = [UInt8](data)
        do {
            places = try OpenMeteoDocument.places(bytes).enumerated().map { (i, object) in
                do {
                    let place = try OpenMeteoDocument.place(object, units: units, provider: "file")
                    return (place.coordinate, place.days)
                } catch {
                    throw CalpipeError("place \(i + 1): \(CalpipeError(error))")
                }
            }
        } catch {
            throw CalpipeError("\(label): \(CalpipeError(error))")
        }
        let allDays = places.flatMap(\.days.keys)
        first = allDays.min()
        last = allDays.max()
    }

    func missingReason(for day: CivilDate, today: CivilDate) -> String? {
        if let last, day > last { return "beyond-horizon" }
        if let first, day < first { return "past" }
        return nil
    }

    func forecasts(for requested: [Coordinate], from: CivilDate, through: CivilDate, query: ForecastQuery) -> [PlaceAnswer] {
        requested.map { place in
            var best: (distance: Double, days: [CivilDate: DailyForecast])?
            for candidate in places {
                guard let c = candidate.coordinate else {
                    if places.count == 1 { best = (0, candidate.days) }
                    continue
                }
                let d = Self.distanceKm(place, c)
                if d <= maximumDistanceKm, d < (best?.distance ?? .infinity) { best = (d, candidate.days) }
            }
            guard let best else {
                return .failed("file: no place in the file within \(JSONWriter.numberText(maximumDistanceKm)) km of \(ForecastStage.text(place))")
            }
            return PlaceAnswer(days: best.days.filter { $0.key >= from && $0.key <= through }, origin: .file)
        }
    }

    /// Great-circle distance (haversine, mean earth radius).
    static func distanceKm(_ a: Coordinate, _ b: Coordinate) -> Double {
        let r = 6371.0088
        let toRadians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * toRadians
        let dLon = (b.longitude - a.longitude) * toRadians
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.latitude * toRadians) * cos(b.latitude * toRadians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * r * asin(min(1, sqrt(h)))
    }
}
