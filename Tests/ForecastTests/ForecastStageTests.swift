import Enrichers
import Fetch
import Foundation
import Pipeline
import XCTest

/// The forecast stage against the recorded Open-Meteo answers, through a real pipeline and a real HTTP server.
final class ForecastStageTests: XCTestCase {
    var server: RecordedServer!

    override func setUpWithError() throws {
        server = try RecordedServer()
    }

    override func tearDown() {
        server.stop()
    }

    func options(_ extra: [String: Any] = [:]) -> [String: Any] {
        server.forecastOptions(extra)
    }

    static let dailyQuery = "daily=weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max,precipitation_sum,wind_speed_10m_max"

    /// Berlin by GEO, Munich by its LOCATION geocoded, GEO beating LOCATION, a past day, a day beyond the
    /// horizon, an event with no place, and a LOCATION the geocoder does not know.
    var mixedEvents: [Event] {
        [
            Harness.event("berlin-standup", day: "2026-11-23", geo: (52.5186, 13.4081)),
            Harness.event("munich-offsite", day: "2026-11-24", hour: nil, lastDay: "2026-11-25", location: "München"),
            Harness.event("geo-beats-location", day: "2026-11-25", hour: 9, geo: (52.5211, 13.4102), location: "München"),
            Harness.event("last-week", day: "2026-11-20", geo: (52.52, 13.41)),
            Harness.event("far-future", day: "2026-12-15", geo: (52.52, 13.41)),
            Harness.event("nowhere", day: "2026-11-24"),
            Harness.event("room", day: "2026-11-24", location: "Room 4.12"),
        ]
    }

    func routeMixed() throws {
        try server.route("/v1/forecast", [.init(headers: ["Content-Type": "application/json; charset=utf-8"], bodyFile: "openmeteo-munich-berlin.json")])
        try server.route("/v1/search", queryContains: "name=München", [.init(headers: ["Content-Type": "application/json"], bodyFile: "geocoding-muenchen.json")])
        try server.route("/v1/search", queryContains: "name=Room 4.12", [.init(headers: ["Content-Type": "application/json"], bodyFile: "geocoding-empty.json")])
    }

    func testOneRequestPerBatchOfPlacesAndTheRecordedValues() throws {
        try routeMixed()
        let cache = Harness.temporaryCache()
        let run = try Harness.run(events: mixedEvents, forecast: options(["historical": false]), cache: cache)

        let forecasts = try server.requests(to: "/v1/forecast")
        XCTAssertEqual(forecasts.count, 1)
        XCTAssertEqual(forecasts.first?.query,
                       "latitude=48.14,52.52&longitude=11.58,13.41&" + Self.dailyQuery + "&timezone=Europe/Berlin&start_date=2026-11-23&end_date=2026-11-25")
        XCTAssertEqual(forecasts.first?.headers["user-agent"], HTTPSettings.defaultUserAgent)
        let geocoding = try server.requests(to: "/v1/search").map(\.query)
        XCTAssertEqual(geocoding, ["name=München&count=5&language=en&format=json", "name=Room 4.12&count=5&language=en&format=json"])

        let munich = Coordinate(latitude: 48.14, longitude: 11.58)
        let berlin = Coordinate(latitude: 52.52, longitude: 13.41)
        let r = run.byKey
        XCTAssertEqual(run.days.count, 8, "every day entry reaches the sink")
        XCTAssertEqual(r["berlin-standup 2026-11-23"], .forecast(DailyForecast(weatherCode: 3, summary: "Overcast", temperatureMax: 4.2, temperatureMin: 0.3, precipitationProbability: 15, precipitationAmount: 0.1, windSpeedMax: 17.3, units: "metric", provider: "open-meteo"), place: berlin))
        XCTAssertEqual(r["munich-offsite 2026-11-24"], .forecast(DailyForecast(weatherCode: 3, summary: "Overcast", temperatureMax: 3.4, temperatureMin: -1.9, precipitationProbability: 23, precipitationAmount: 0.0, windSpeedMax: 9.7, units: "metric", provider: "open-meteo"), place: munich))
        XCTAssertEqual(r["munich-offsite 2026-11-25"], .forecast(DailyForecast(weatherCode: 61, summary: "Slight rain", temperatureMax: 5.1, temperatureMin: 0.7, precipitationProbability: 81, precipitationAmount: 4.7, windSpeedMax: 21.6, units: "metric", provider: "open-meteo"), place: munich))
        // GEO wins over LOCATION: Berlin's values (some null that day), not Munich's.
        XCTAssertEqual(r["geo-beats-location 2026-11-25"], .forecast(DailyForecast(weatherCode: 2, summary: "Partly cloudy", temperatureMax: 5.5, precipitationAmount: 0.0, windSpeedMax: 12.1, units: "metric", provider: "open-meteo"), place: berlin))
        XCTAssertEqual(r["last-week 2026-11-20"], .missing(reason: "past"))
        XCTAssertEqual(r["far-future 2026-12-15"], .missing(reason: "beyond-horizon"))
        // No place of their own: the day's weather, at the day's place (Munich, of its only entry with a place).
        XCTAssertEqual(r["nowhere 2026-11-24"], r["munich-offsite 2026-11-24"])
        XCTAssertEqual(r["room 2026-11-24"], r["munich-offsite 2026-11-24"])
        // One forecast per day header; only the Munich offsite on a Berlin day (2026-11-25) has its own.
        XCTAssertEqual(run.ownForecasts, ["munich-offsite 2026-11-25"])
        XCTAssertEqual(run.headers.map(\.date.iso8601), ["2026-11-20", "2026-11-23", "2026-11-24", "2026-11-25", "2026-12-15"])

        XCTAssertEqual(run.report.counter("forecasts fetched"), 4)
        XCTAssertEqual(run.report.counter("forecasts missing (past)"), 1)
        XCTAssertEqual(run.report.counter("forecasts missing (beyond-horizon)"), 1)
        XCTAssertEqual(run.report.counter("forecasts missing (no-location)"), 0)
        XCTAssertEqual(run.report.counter("forecast requests"), 1)
        XCTAssertEqual(run.warnings, ["geocoding \"Room 4.12\": no place found"])
        XCTAssertTrue(run.report.rejections.isEmpty)
    }

    func testSecondRunIsServedFromTheCacheWithoutARequest() throws {
        try routeMixed()
        let cache = Harness.temporaryCache()
        let first = try Harness.run(events: mixedEvents, forecast: options(), cache: cache)
        let requestsAfterFirst = try server.log().count
        XCTAssertEqual(requestsAfterFirst, 3)
        let second = try Harness.run(events: mixedEvents, forecast: options(), cache: cache)
        XCTAssertEqual(try server.log().count, requestsAfterFirst, "no request at all on the second run")
        XCTAssertEqual(second.report.counter("forecasts from cache"), 4)
        XCTAssertEqual(second.report.counter("forecasts fetched"), 0)
        XCTAssertEqual(second.byKey, first.byKey)
    }

    func testUnchangedForecastIsRevalidatedWithETag() throws {
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-berlin.json", etag: "\"om-berlin-1\"")])
        let cache = Harness.temporaryCache()
        let events = [Harness.event("standup", day: "2026-11-23", geo: (52.52, 13.41))]
        // ttl 0: kept, but asked again (conditionally) on every run.
        _ = try Harness.run(events: events, forecast: options(["ttl": 0]), cache: cache)
        let second = try Harness.run(events: events, forecast: options(["ttl": 0]), cache: cache)
        let requests = try server.requests(to: "/v1/forecast")
        XCTAssertEqual(requests.count, 2)
        XCTAssertNil(requests[0].headers["if-none-match"])
        XCTAssertEqual(requests[1].headers["if-none-match"], "\"om-berlin-1\"")
        XCTAssertEqual(second.report.counter("forecasts from cache"), 1)
        XCTAssertEqual(second.report.counter("forecast requests"), 1)
        guard case .forecast(let f, _)? = second.byKey["standup 2026-11-23"] else { return XCTFail("no forecast") }
        XCTAssertEqual(f.temperatureMax, 4.2)
    }

    func testServerErrorsUseTheStaleCopyThenMarkUnavailableWithoutOne() throws {
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-berlin.json")])
        let cache = Harness.temporaryCache()
        let events = [Harness.event("standup", day: "2026-11-24", geo: (52.52, 13.41))]
        _ = try Harness.run(events: events, forecast: options(["ttl": 0]), cache: cache)

        try server.route("/v1/forecast", [.init(status: 500, body: "Internal Server Error")])
        let started = Date()
        let stale = try Harness.run(events: events, forecast: options(["ttl": 0, "retry_budget": 0.4, "backoff": 0.05]), cache: cache)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertGreaterThanOrEqual(try server.requests(to: "/v1/forecast").count, 3, "the first answer and at least two attempts")
        XCTAssertEqual(stale.report.counter("forecasts stale"), 1)
        guard case .forecast(let f, _)? = stale.byKey["standup 2026-11-24"] else { return XCTFail("no stale forecast") }
        XCTAssertEqual(f.weatherCode, 80)
        let url = server.base + "/v1/forecast?latitude=52.52&longitude=13.41&" + Self.dailyQuery.replacingOccurrences(of: "daily=", with: "daily=")
            + "&timezone=Europe%2FBerlin&start_date=2026-11-24&end_date=2026-11-24"
        XCTAssertEqual(stale.warnings, ["forecast for 52.52,13.41: \(url): HTTP 500 (Internal Server Error); using the cached forecast"])

        let empty = try Harness.run(events: events, forecast: options(["retry_budget": 0.2, "backoff": 0.05]), cache: Harness.temporaryCache())
        XCTAssertEqual(empty.byKey["standup 2026-11-24"], .missing(reason: "unavailable"))
        XCTAssertEqual(empty.report.counter("forecasts missing (unavailable)"), 1)
        XCTAssertEqual(empty.warnings, ["forecast for 52.52,13.41 (2026-11-24 to 2026-11-24): open-meteo: \(url): HTTP 500 (Internal Server Error)"])
        XCTAssertEqual(empty.days.count, 1)
    }

    func testMalformedJSONIsAPerPlaceErrorAndTheRunCompletes() throws {
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-malformed.json")])
        let events = [Harness.event("a", day: "2026-11-23", geo: (52.52, 13.41)), Harness.event("b", day: "2026-11-24", geo: (52.52, 13.41))]
        let run = try Harness.run(events: events, forecast: options(), cache: Harness.temporaryCache())
        XCTAssertEqual(run.days.count, 2)
        XCTAssertEqual(run.byKey["a 2026-11-23"], .missing(reason: "unavailable"))
        XCTAssertEqual(run.byKey["b 2026-11-24"], .missing(reason: "unavailable"))
        XCTAssertEqual(run.warnings, ["forecast for 52.52,13.41 (2026-11-23 to 2026-11-24): open-meteo: malformed JSON (line 1, column 191: unterminated string)"])
        // The unreadable answer is not kept: the next run asks again.
        _ = try Harness.run(events: events, forecast: options(), cache: Harness.temporaryCache())
        XCTAssertEqual(try server.requests(to: "/v1/forecast").count, 2)
    }

    func testErrorReasonFromTheServiceIsShown() throws {
        try server.route("/v1/forecast", [.init(status: 400, headers: ["Content-Type": "application/json"], bodyFile: "openmeteo-error-400.json")])
        let events = [Harness.event("a", day: "2026-11-23", geo: (52.52, 13.41))]
        let run = try Harness.run(events: events, forecast: options(), cache: Harness.temporaryCache())
        XCTAssertEqual(run.warnings, ["forecast for 52.52,13.41 (2026-11-23 to 2026-11-23): open-meteo answered HTTP 400: Cannot initialize WeatherVariable from invalid String value temperature_2m_maxx for key daily"])
        XCTAssertEqual(try server.requests(to: "/v1/forecast").count, 1, "a 400 is not retried")
    }

    func testDailyLimitStopsFurtherRequestsForTheRun() throws {
        try server.route("/v1/forecast", [.init(status: 429, headers: ["Content-Type": "application/json"], bodyFile: "openmeteo-daily-limit.json")])
        let events = [Harness.event("berlin", day: "2026-11-23", geo: (52.52, 13.41)), Harness.event("munich", day: "2026-11-23", geo: (48.14, 11.58)),
                      Harness.event("hamburg", day: "2026-11-23", geo: (53.55, 9.99))]
        let run = try Harness.run(events: events, forecast: options(["batch_size": 1, "retry_budget": 5]), cache: Harness.temporaryCache())
        XCTAssertEqual(try server.requests(to: "/v1/forecast").count, 1, "one answer saying the day's limit is reached, then no more requests")
        XCTAssertEqual(run.report.counter("forecasts missing (unavailable)"), 3)
        let host = "127.0.0.1:\(server.port)"
        XCTAssertEqual(run.warnings.first, "forecast for 48.14,11.58 (2026-11-23 to 2026-11-23): open-meteo: \(host): request limit reached, no more requests this run (Daily API request limit exceeded. Please try again tomorrow.)")
        XCTAssertEqual(run.warnings.count, 3)
    }

    func testAmbiguousPlaceNameUsesTheFirstMatchAndSaysSo() throws {
        try server.route("/v1/search", queryContains: "name=Springfield", [.init(bodyFile: "geocoding-springfield.json")])
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-berlin.json")])
        let events = [Harness.event("town-hall", day: "2026-11-23", location: "Springfield")]
        let run = try Harness.run(events: events, forecast: options(), cache: Harness.temporaryCache())
        XCTAssertEqual(run.warnings, ["geocoding \"Springfield\": 3 places match; using Springfield, Missouri, United States (37.22,-93.30)"])
        XCTAssertEqual(run.report.counter("geocoding ambiguous"), 1)
        XCTAssertTrue(try server.requests(to: "/v1/forecast").first?.query.hasPrefix("latitude=37.22&longitude=-93.30&") ?? false)
        guard case .forecast(_, let place)? = run.byKey["town-hall 2026-11-23"] else { return XCTFail("no forecast") }
        XCTAssertEqual(place, Coordinate(latitude: 37.22, longitude: -93.30))
    }

    func testPipelineLocationIsTheFallbackAndMissUsesIt() throws {
        try server.route("/v1/search", queryContains: "name=Room 4.12", [.init(bodyFile: "geocoding-empty.json")])
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-berlin.json")])
        let events = [Harness.event("room", day: "2026-11-23", location: "Room 4.12")]
        let run = try Harness.run(events: events, forecast: options(), cache: Harness.temporaryCache(), location: ["latitude": 52.5213, "longitude": 13.4129])
        guard case .forecast(let f, let place)? = run.byKey["room 2026-11-23"] else { return XCTFail("no forecast") }
        XCTAssertEqual(place, Coordinate(latitude: 52.52, longitude: 13.41))
        XCTAssertEqual(f.weatherCode, 3)
        XCTAssertEqual(run.report.counter("geocoding misses"), 1)
    }

    func testAddressIsRetriedByItsTownAfterAMiss() throws {
        try server.route("/v1/search", [.init(bodyFile: "geocoding-empty.json")])
        try server.route("/v1/search", queryContains: "name=München&", [.init(bodyFile: "geocoding-muenchen.json")])
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-berlin.json")])
        let events = [Harness.event("fair", day: "2026-11-23", location: "Halle B3, Messe München,  München")]
        let run = try Harness.run(events: events, forecast: options(), cache: Harness.temporaryCache())
        XCTAssertEqual(try server.requests(to: "/v1/search").map(\.query), [
            "name=Halle B3, Messe München, München&count=5&language=en&format=json",
            "name=München&count=5&language=en&format=json",
        ])
        guard case .forecast(_, let place)? = run.byKey["fair 2026-11-23"] else { return XCTFail("no forecast") }
        XCTAssertEqual(place, Coordinate(latitude: 48.14, longitude: 11.58))
        XCTAssertEqual(run.warnings, [])
        XCTAssertEqual(run.report.counter("geocoding misses"), 0)
    }

    func testPipelineLocationByNameIsGeocodedOnce() throws {
        try server.route("/v1/search", queryContains: "name=München&", [.init(bodyFile: "geocoding-muenchen.json")])
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-berlin.json")])
        let events = [Harness.event("a", day: "2026-11-23"), Harness.event("b", day: "2026-11-24")]
        let run = try Harness.run(events: events, forecast: options(), cache: Harness.temporaryCache(), location: ["name": "München"])
        XCTAssertEqual(try server.requests(to: "/v1/search").count, 1)
        XCTAssertEqual(try server.requests(to: "/v1/forecast").first?.query.hasPrefix("latitude=48.14&longitude=11.58&"), true)
        guard case .forecast(_, let place)? = run.byKey["b 2026-11-24"] else { return XCTFail("no forecast") }
        XCTAssertEqual(place, Coordinate(latitude: 48.14, longitude: 11.58))
    }

    func testMalformedPipelineLocationIsAConfigError() throws {
        XCTAssertThrowsError(try Harness.run(events: [], forecast: options(), cache: Harness.temporaryCache(), location: ["latitude": 95, "longitude": 13])) { error in
            XCTAssertEqual("\(error)", "pipelines/test.json: location.latitude: expected a number from -90 to 90 (or give \"name\")")
        }
    }

    func testGeocodingOffSkipsLocationTexts() throws {
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-berlin.json")])
        let events = [Harness.event("offsite", day: "2026-11-23", location: "München")]
        let run = try Harness.run(events: events, forecast: options(["geocode": false]), cache: Harness.temporaryCache(), location: ["latitude": 52.52, "longitude": 13.41])
        XCTAssertEqual(try server.requests(to: "/v1/search").count, 0)
        guard case .forecast(_, let place)? = run.byKey["offsite 2026-11-23"] else { return XCTFail("no forecast") }
        XCTAssertEqual(place, Coordinate(latitude: 52.52, longitude: 13.41))
    }

    func testDayWithOnlyNullValuesIsUnavailable() throws {
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-berlin.json")])
        let events = [Harness.event("a", day: "2026-11-24", geo: (52.52, 13.41)), Harness.event("b", day: "2026-11-25", geo: (52.52, 13.41))]
        let run = try Harness.run(events: events, forecast: options(), cache: Harness.temporaryCache())
        XCTAssertEqual(run.byKey["b 2026-11-25"], .missing(reason: "unavailable"))
        XCTAssertEqual(run.report.counter("forecasts fetched"), 1)
        XCTAssertEqual(run.report.counter("forecasts missing (unavailable)"), 1)
        XCTAssertEqual(run.warnings, [])
    }

    func testImperialUnitsAreAskedFor() throws {
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-berlin.json")])
        let events = [Harness.event("a", day: "2026-11-23", geo: (52.52, 13.41))]
        _ = try Harness.run(events: events, forecast: options(["units": "imperial"]), cache: Harness.temporaryCache())
        XCTAssertTrue(try server.requests(to: "/v1/forecast").first?.query.hasSuffix("&end_date=2026-11-23&temperature_unit=fahrenheit&wind_speed_unit=mph&precipitation_unit=inch") ?? false)
    }

    func testAPIKeyIsSentAndKeepsItsOwnCacheEntry() throws {
        try server.route("/v1/forecast", [.init(bodyFile: "openmeteo-berlin.json")])
        let events = [Harness.event("a", day: "2026-11-23", geo: (52.52, 13.41))]
        let cache = Harness.temporaryCache()
        _ = try Harness.run(events: events, forecast: options(), cache: cache)
        let keyed = try Harness.run(events: events, forecast: options(["apikey": "k-123"]), cache: cache)
        let queries = try server.requests(to: "/v1/forecast").map(\.query)
        XCTAssertEqual(queries.count, 2, "a commercial answer is not served from the free one's cache entry")
        XCTAssertTrue(queries[1].hasSuffix("&end_date=2026-11-23&apikey=k-123"))
        XCTAssertEqual(keyed.report.counter("forecasts fetched"), 1)
    }

    func testHistoricalDaysComeFromTheArchiveHost() throws {
        try server.route("/v1/archive", [.init(bodyFile: "openmeteo-berlin.json")])
        let events = [Harness.event("old", day: "2026-01-15", geo: (52.52, 13.41))]
        let run = try Harness.run(events: events, forecast: options(["historical": true]), cache: Harness.temporaryCache())
        XCTAssertEqual(try server.requests(to: "/v1/archive").first?.query,
                       "latitude=52.52&longitude=13.41&daily=weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,wind_speed_10m_max&timezone=Europe/Berlin&start_date=2026-01-15&end_date=2026-01-15")
        // The recorded answer has other days: the asked-for day is missing from it.
        XCTAssertEqual(run.byKey["old 2026-01-15"], .missing(reason: "unavailable"))
    }
}
