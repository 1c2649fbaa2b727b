import Fetch
import Pipeline

extension ForecastStage {
    /// The `forecast` stage's options.
    package struct Options: OptionConfig {
        var provider = "open-meteo"
        var path: OptionPath?
        var units = ForecastUnits.metric
        var historical = true
        var geocode: Bool?
        var cache: OptionPath?
        var ttl: Double = 3600
        var baseURL: String?
        var archiveURL: String?
        var geocodingURL = "https://geocoding-api.open-meteo.com"
        var apikey: Secret?
        var client = HTTPClientOptions()
        var batchSize = 10
        var maxDistanceKm: Double = 50
        var bufferLimit = 50_000
        var entryDistanceKm: Double = 25

        package init() {}

        package static let options = OptionSpec<Options> {
            Key("provider", \.provider, .oneOf(ForecastStage.providers), "where forecasts come from")
            Key("path", \.path, .path, "file provider: a saved Open-Meteo answer (JSON), relative to the pipeline file")
            Key("units", \.units, .choice, "metric (°C, mm, km/h) or imperial (°F, inch, mph)")
            Key("historical", \.historical, .boolean, "open-meteo: ask for past days (the archive for days older than 92 days) instead of marking them \"past\"")
            Key("geocode", \.geocode, .boolean, "look up event LOCATION texts and a location {\"name\"} with Open-Meteo's geocoding API",
                default: "true (false for the file provider)")
            Key("cache", \.cache, .path,
                "the HTTP cache file (SQLite); else $CALPIPE_CACHE, else $XDG_CACHE_HOME/calpipe/http-cache.sqlite, else ~/.cache/calpipe/http-cache.sqlite")
            Key("ttl", \.ttl, .number(in: 0...31_536_000), "seconds a forecast stays fresh when the service sends no Cache-Control or Expires")
            Key("base_url", \.baseURL, .url, "the forecast service's address", default: "https://api.open-meteo.com (metno: https://api.met.no)")
            Key("archive_url", \.archiveURL, .url, "open-meteo: the archive's address, for historical days", default: "https://archive-api.open-meteo.com")
            Key("geocoding_url", \.geocodingURL, .url, "the geocoding service's address")
            Key("apikey", \.apikey, .secret, "open-meteo: key for the commercial service (then the customer- hosts are the default)")
            Include(\.client)
            Key("batch_size", \.batchSize, .integer(in: 1...100), "places per request (open-meteo)")
            Key("max_distance_km", \.maxDistanceKm, .number(in: 0...20_000), "file provider: how far a place may be from the nearest place in the file")
            Key("buffer_limit", \.bufferLimit, .integer(in: 1...10_000_000), "day entries held before forecasts are fetched for them")
            Key("entry_distance_km", \.entryDistanceKm, .number(in: 0...20_000),
                "an entry gets a forecast of its own only when its place is farther than this from its day's place")
        }

        package mutating func validate(_ context: OptionContext<Options>) {
            // Options that only one provider reads are an error elsewhere, so a typo'd pipeline does not run half-configured.
            let onlyFor: [(option: PartialKeyPath<Options>, provider: String)] = [
                (\.path, "file"), (\.maxDistanceKm, "file"), (\.historical, "open-meteo"), (\.archiveURL, "open-meteo"), (\.apikey, "open-meteo"),
            ]
            for (option, owner) in onlyFor where context.isGiven(option) && provider != owner {
                context.report(option, "only the \(owner) provider reads this option (provider is \"\(provider)\")")
            }
            if provider == "file", path == nil { context.report(\.path, "missing required option (expected \(OptionKind.path.expectation))") }
            if provider == "metno", !(client.userAgent.map(MetNoProvider.hasContact) ?? false) {
                context.report(\.client.userAgent, "MET Norway requires an identifying User-Agent with contact information (an e-mail address or a URL), e.g. \"myagenda/1.0 you@example.com\"")
            }
            let addresses: [(option: PartialKeyPath<Options>, url: String?)] = [(\.baseURL, baseURL), (\.archiveURL, archiveURL), (\.geocodingURL, geocodingURL)]
            for (option, url) in addresses {
                if let url, NormalizedURL(url) == nil { context.report(option, "expected an http:// or https:// address, got \"\(url)\"") }
            }
        }
    }
}
