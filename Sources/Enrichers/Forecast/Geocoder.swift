import Fetch
import Foundation
import Pipeline

/// Place names to coordinates through Open-Meteo's geocoding API (`/v1/search?name=...`). Answers are kept
/// in the HTTP cache for good (places do not move), and each name is looked up once per run. When several
/// places match, the first (the service ranks by relevance and population) is used and a warning says so.
final class Geocoder {
    private let baseURL: String
    private let fetcher: HTTPFetcher
    private var memo: [String: Coordinate?] = [:]
    /// How many candidates to ask for: enough to tell an unambiguous name from an ambiguous one.
    static let candidates = 5

    init(baseURL: String, fetcher: HTTPFetcher) {
        self.baseURL = OpenMeteoProvider.trimmed(baseURL)
        self.fetcher = fetcher
    }

    /// Collapses runs of white space; names differing only in spacing share one lookup.
    static func normalize(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    func url(for name: String) -> String {
        var components = URLComponents()
        components.queryItems = [URLQueryItem(name: "name", value: name), URLQueryItem(name: "count", value: String(Self.candidates)),
                                 URLQueryItem(name: "language", value: "en"), URLQueryItem(name: "format", value: "json")]
        return baseURL + "/v1/search?" + (components.percentEncodedQuery ?? "")
    }

    /// The coordinate (not yet rounded) for a place name, or nil with a warning on the context.
    /// A text such as "Room Spree, Alexanderplatz 1, Berlin" that matches nothing as a whole is tried once
    /// more by its last comma-separated part ("Berlin"), as LOCATION fields often end with the town.
    func coordinate(for rawName: String, context: RunContext) -> Coordinate? {
        let name = Self.normalize(rawName)
        guard !name.isEmpty else { return nil }
        if let known = memo[name] { return known }
        var found: Coordinate?
        switch lookUp(name, context: context) {
        case .found(let c):
            found = c
        case .failed:
            found = nil
        case .none:
            let last = name.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if name.contains(","), !last.isEmpty, case .found(let c) = lookUp(last, context: context, quietMiss: true) {
                found = c
            } else {
                context.warn("geocoding \"\(name)\": no place found")
                context.report.count("geocoding misses")
            }
        }
        memo[name] = found
        return found
    }

    private enum Lookup {
        case found(Coordinate)
        /// The service matched nothing.
        case none
        /// The service could not answer (already warned).
        case failed
    }

    private func lookUp(_ name: String, context: RunContext, quietMiss: Bool = false) -> Lookup {
        let address = url(for: name)
        let result: FetchResult
        do {
            result = try fetcher.get(address, policy: CachePolicy(keepForever: true, isCancelled: { [cancellation = context.cancellation] in cancellation.cancelledReason != nil }))
        } catch {
            context.warn("geocoding \"\(name)\" failed: \(CalpipeError(error))")
            context.report.count("geocoding failures")
            return .failed
        }
        guard result.response.status == 200, let json = try? JSONParser.parse(bytes: result.response.body), json.objectValue != nil else {
            fetcher.forget(address)
            let reason = (try? JSONParser.parse(bytes: result.response.body)).flatMap(OpenMeteoDocument.errorReason) ?? result.response.bodyPreview
            context.warn("geocoding \"\(name)\" failed: HTTP \(result.response.status): \(reason)")
            context.report.count("geocoding failures")
            return .failed
        }
        let results = json.objectValue?["results"]?.arrayValue ?? []
        let candidates: [(coordinate: Coordinate, label: String)] = results.compactMap { item in
            guard let o = item.objectValue, let lat = o["latitude"]?.numberValue, let lon = o["longitude"]?.numberValue else { return nil }
            let c = Coordinate(latitude: lat, longitude: lon)
            guard c.isValid else { return nil }
            let label = [o["name"]?.stringValue, o["admin1"]?.stringValue, o["country"]?.stringValue].compactMap { $0 }.joined(separator: ", ")
            return (c, label)
        }
        guard let best = candidates.first else { return .none }
        if candidates.count > 1 {
            context.warn("geocoding \"\(name)\": \(candidates.count == Self.candidates ? "\(Self.candidates) or more" : String(candidates.count)) places match; using \(best.label) (\(ForecastStage.text(ForecastStage.rounded(best.coordinate))))")
            context.report.count("geocoding ambiguous")
        }
        context.report.count("places geocoded")
        return .found(best.coordinate)
    }
}
