import Enrichers
import Fetch
import Foundation
import Pipeline
import XCTest

/// The metno provider: hourly GeoJSON aggregated into local days, checked against the values
/// scripts/forecast_metno_oracle.py computed independently (zoneinfo for the local days).
final class MetNoTests: XCTestCase {
    var server: RecordedServer!
    let userAgent = "calpipe-tests/1.0 tests@example.com"

    override func setUpWithError() throws {
        server = try RecordedServer()
    }

    override func tearDown() {
        server.stop()
    }

    var events: [Event] {
        let oslo = Zone.system(identifier: "Europe/Oslo")!
        return ["2026-11-23", "2026-11-24", "2026-11-25"].map { Harness.event("walk-\($0)", day: $0, hour: 12, geo: (59.9133, 10.7522), zone: oslo) }
    }

    func options(_ extra: [String: Any] = [:]) -> [String: Any] {
        var o: [String: Any] = ["provider": "metno", "base_url": server.base, "user_agent": userAgent, "geocode": false,
                                "max_requests_per_second": 0, "retry_budget": 0.3, "backoff": 0.05]
        for (k, v) in extra { o[k] = v }
        return o
    }

    func expected(_ units: String) throws -> [String: DailyForecast] {
        let data = try Data(contentsOf: RecordedServer.fixtures.appendingPathComponent("metno-oslo.expected.json"))
        let json = try JSONSerialization.jsonObject(with: data) as! [String: [String: [String: Any]]]
        var out: [String: DailyForecast] = [:]
        for (day, byUnits) in json {
            let v = byUnits[units]!
            let code = v["weather_code"] as? Int
            out[day] = DailyForecast(weatherCode: code, summary: code.flatMap(WeatherCode.summary), temperatureMax: v["temperature_max"] as? Double,
                                     temperatureMin: v["temperature_min"] as? Double, precipitationProbability: nil,
                                     precipitationAmount: v["precipitation"] as? Double, windSpeedMax: v["wind_max"] as? Double,
                                     units: units, provider: "metno")
        }
        return out
    }

    func testHourlySeriesBecomesLocalDays() throws {
        try server.route("/weatherapi/locationforecast/2.0/compact", [.init(headers: ["Content-Type": "application/json",
                                                                                      "Expires": "Mon, 23 Nov 2026 08:30:00 GMT",
                                                                                      "Date": "Mon, 23 Nov 2026 08:00:00 GMT"],
                                                                            bodyFile: "metno-oslo.json", lastModified: "Mon, 23 Nov 2026 07:12:44 GMT")])
        for units in ["metric", "imperial"] {
            let run = try Harness.run(events: events, forecast: options(["units": units]), cache: Harness.temporaryCache(), timezone: "Europe/Oslo")
            let want = try expected(units)
            let place = Coordinate(latitude: 59.91, longitude: 10.75)
            for day in ["2026-11-23", "2026-11-24", "2026-11-25"] {
                XCTAssertEqual(run.byKey["walk-\(day) \(day)"], .forecast(want[day]!, place: place), "\(units) \(day)")
            }
        }
        let requests = try server.log()
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests.first?.query, "lat=59.91&lon=10.75")
        XCTAssertEqual(requests.first?.headers["user-agent"], userAgent)
    }

    func testExpiresThenIfModifiedSinceRevalidation() throws {
        // Expires equal to Date: the copy must be revalidated on the next run; the server answers 304.
        try server.route("/weatherapi/locationforecast/2.0/compact", [.init(headers: ["Expires": "Mon, 23 Nov 2026 08:00:00 GMT",
                                                                                      "Date": "Mon, 23 Nov 2026 08:00:00 GMT"],
                                                                            bodyFile: "metno-oslo.json", lastModified: "Mon, 23 Nov 2026 07:12:44 GMT")])
        let cache = Harness.temporaryCache()
        let first = try Harness.run(events: events, forecast: options(), cache: cache, timezone: "Europe/Oslo")
        let second = try Harness.run(events: events, forecast: options(), cache: cache, timezone: "Europe/Oslo")
        let requests = try server.log()
        XCTAssertEqual(requests.map { $0.headers["if-modified-since"] }, [nil, "Mon, 23 Nov 2026 07:12:44 GMT"])
        XCTAssertEqual(first.report.counter("forecasts fetched"), 3)
        XCTAssertEqual(second.report.counter("forecasts from cache"), 3)
        XCTAssertEqual(second.byKey, first.byKey)
    }

    func testRefusesToRunWithoutAContactUserAgent() throws {
        for extra: [String: Any] in [["user_agent": "calpipe"], [:]] {
            var o = options(extra)
            if extra.isEmpty { o["user_agent"] = nil }
            XCTAssertThrowsError(try Harness.run(events: events, forecast: o, cache: Harness.temporaryCache(), timezone: "Europe/Oslo")) { error in
                XCTAssertEqual("\(error)", "pipelines/test.json: stages[1].user_agent: MET Norway requires an identifying User-Agent with contact information (an e-mail address or a URL), e.g. \"myagenda/1.0 you@example.com\"")
            }
        }
        XCTAssertEqual(try server.log().count, 0)
    }

    func testDaysPastNineDaysAreBeyondTheHorizon() throws {
        try server.route("/weatherapi/locationforecast/2.0/compact", [.init(bodyFile: "metno-oslo.json")])
        let oslo = Zone.system(identifier: "Europe/Oslo")!
        let run = try Harness.run(events: [Harness.event("late", day: "2026-12-02", geo: (59.91, 10.75), zone: oslo),
                                           Harness.event("early", day: "2026-11-22", geo: (59.91, 10.75), zone: oslo)],
                                  forecast: options(), cache: Harness.temporaryCache(), timezone: "Europe/Oslo")
        XCTAssertEqual(run.byKey["late 2026-12-02"], .missing(reason: "beyond-horizon"))
        XCTAssertEqual(run.byKey["early 2026-11-22"], .missing(reason: "past"))
        XCTAssertEqual(try server.log().count, 0)
    }
}
