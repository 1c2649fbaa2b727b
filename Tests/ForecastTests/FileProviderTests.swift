import Enrichers
import Foundation
import Pipeline
import XCTest

/// The file provider with the bundled demo answer (data/forecast-sample.json): offline, no HTTP at all.
final class FileProviderTests: XCTestCase {
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("data/forecast-sample.json").path

    func testSavedAnswerServesNearbyPlacesOffline() throws {
        let events = [
            Harness.event("berlin", day: "2026-11-23", geo: (52.531, 13.384)),
            Harness.event("munich", day: "2026-11-24", hour: nil, location: "München"),
            Harness.event("vienna", day: "2026-11-24", geo: (48.21, 16.37)),
            Harness.event("later", day: "2027-02-15", geo: (52.52, 13.41)),
            Harness.event("earlier", day: "2026-09-01", geo: (52.52, 13.41)),
        ]
        let run = try Harness.run(events: events, forecast: ["provider": "file", "path": Self.sample], cache: "/nonexistent/never-opened.sqlite",
                                  location: ["latitude": 48.137, "longitude": 11.575])
        XCTAssertEqual(run.byKey["berlin 2026-11-23"], .forecast(DailyForecast(weatherCode: 61, summary: "Slight rain", temperatureMax: 4.6, temperatureMin: 2.0, precipitationProbability: 48, precipitationAmount: 3.1, windSpeedMax: 22.6, units: "metric", provider: "file"), place: Coordinate(latitude: 52.53, longitude: 13.38)))
        // LOCATION text is not geocoded with the file provider: the pipeline's location (Munich) is used.
        XCTAssertEqual(run.byKey["munich 2026-11-24"], .forecast(DailyForecast(weatherCode: 51, summary: "Light drizzle", temperatureMax: 5.1, temperatureMin: -0.6, precipitationProbability: 74, precipitationAmount: 0.9, windSpeedMax: 27.0, units: "metric", provider: "file"), place: Coordinate(latitude: 48.14, longitude: 11.58)))
        XCTAssertEqual(run.byKey["vienna 2026-11-24"], .missing(reason: "unavailable"))
        XCTAssertEqual(run.byKey["later 2027-02-15"], .missing(reason: "beyond-horizon"))
        XCTAssertEqual(run.byKey["earlier 2026-09-01"], .missing(reason: "past"))
        XCTAssertEqual(run.warnings, ["forecast for 48.21,16.37 (2026-11-24 to 2026-11-24): file: no place in the file within 50 km of 48.21,16.37"])
        XCTAssertEqual(run.report.counter("forecasts from file"), 2)
    }

    func testMetricFileReadAsImperial() throws {
        let run = try Harness.run(events: [Harness.event("berlin", day: "2026-11-23", geo: (52.52, 13.41))],
                                  forecast: ["provider": "file", "path": Self.sample, "units": "imperial"], cache: "/nonexistent/x.sqlite")
        // 4.6 °C = 40.28 °F, 2.0 °C = 35.6 °F, 3.1 mm = 0.122 in, 22.6 km/h = 14.04 mph.
        XCTAssertEqual(run.byKey["berlin 2026-11-23"], .forecast(DailyForecast(weatherCode: 61, summary: "Slight rain", temperatureMax: 40.3, temperatureMin: 35.6, precipitationProbability: 48, precipitationAmount: 0.12, windSpeedMax: 14.0, units: "imperial", provider: "file"), place: Coordinate(latitude: 52.52, longitude: 13.41)))
    }

    func testConfigurationErrorsNameThePath() throws {
        let events = [Harness.event("berlin", day: "2026-11-23", geo: (52.52, 13.41))]
        XCTAssertThrowsError(try Harness.run(events: events, forecast: ["provider": "file", "path": "missing.json"], cache: "/nonexistent/x.sqlite")) { error in
            XCTAssertEqual("\(error)", "pipelines/test.json: stages[1].path: cannot read the forecast file missing.json: no such file")
        }
        XCTAssertThrowsError(try Harness.run(events: events, forecast: ["provider": "file", "path": "openmeteo-malformed.json"], cache: "/nonexistent/x.sqlite")) { error in
            XCTAssertEqual("\(error)", "pipelines/test.json: stages[1].path: openmeteo-malformed.json: malformed JSON (line 1, column 191: unterminated string)")
        }
        XCTAssertThrowsError(try Harness.run(events: events, forecast: ["provider": "open-meteo", "path": "x.json", "unit": "metric"], cache: "/nonexistent/x.sqlite")) { error in
            XCTAssertEqual("\(error)", """
                pipelines/test.json: stages[1].unit: unknown option (expected one of: provider, path, units, historical, geocode, cache, ttl, base_url, archive_url, geocoding_url, apikey, user_agent, timeout, connect_timeout, retry_budget, backoff, max_attempts, max_requests_per_second, batch_size, max_distance_km, buffer_limit); did you mean "units"?
                pipelines/test.json: stages[1].path: only the file provider reads this option (provider is "open-meteo")
                """)
        }
    }
}
