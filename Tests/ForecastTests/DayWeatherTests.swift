import Enrichers
import Foundation
import Pipeline
import XCTest

/// Weather per day (issue 17): every day of the window gets the weather of the day's place, empty days
/// included; entries near the day's place share it, far ones keep their own.
final class DayWeatherTests: XCTestCase {
    static let sample = FileProviderTests.sample
    static let berlin = Coordinate(latitude: 52.52, longitude: 13.41)

    /// Three Berlin events on one day (GEO a few km apart), one in Hamburg (255 km), one 11 km out.
    var events: [Event] {
        [
            Harness.event("alex", day: "2026-11-25", hour: 9, geo: (52.5219, 13.4132)),
            Harness.event("mitte", day: "2026-11-25", hour: 11, geo: (52.517, 13.389)),
            Harness.event("kreuzberg", day: "2026-11-25", hour: 15, geo: (52.499, 13.403)),
            Harness.event("hamburg", day: "2026-11-25", hour: 17, geo: (53.55, 9.99)),
            Harness.event("dahlem", day: "2026-11-27", hour: 10, geo: (52.45, 13.29)),
        ]
    }

    func testEveryDayOfTheWindowGetsTheWeatherOfThePipelineLocationWithTheFileProvider() throws {
        let run = try Harness.run(events: events, forecast: ["provider": "file", "path": Self.sample], cache: "/nonexistent/x.sqlite",
                                  location: ["latitude": 52.52, "longitude": 13.41], window: ("2026-11-23", "2026-11-30"))
        XCTAssertEqual(run.headers.map(\.date.iso8601), ["2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29"])
        for header in run.headers {
            XCTAssertEqual(header.weather?.isAvailable, true, header.date.iso8601)
            XCTAssertEqual(header.weather?.place, Self.berlin, header.date.iso8601)
            XCTAssertTrue(header.entries.isEmpty)
        }
        // The sample's values for Berlin on 2026-11-24, a day without entries (scripts/make_forecast_sample.py).
        let sample = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.sample))) as! [[String: Any]]
        let daily = sample[0]["daily"] as! [String: [Any]]
        let index = (daily["time"] as! [String]).firstIndex(of: "2026-11-24")!
        let forecast = run.headers[1].weather?.forecast
        XCTAssertEqual(forecast?.weatherCode, daily["weather_code"]![index] as? Int)
        XCTAssertEqual(forecast?.temperatureMax, daily["temperature_2m_max"]![index] as? Double)
        XCTAssertEqual(forecast?.summary, forecast?.weatherCode.flatMap(WeatherCode.summary))
        XCTAssertEqual(forecast?.icon, forecast?.weatherCode.flatMap { WeatherIcon.name(forCode: $0) })
        // Three Berlin events: one weather, the day's. Hamburg (255 km) keeps its own; Dahlem (11 km) shares.
        XCTAssertEqual(run.ownForecasts, ["hamburg 2026-11-25"])
        guard case .forecast(_, let place)? = run.days.first(where: { $0.event.uid == "hamburg" })?.forecast else { return XCTFail("no own forecast") }
        XCTAssertEqual(place, Coordinate(latitude: 53.55, longitude: 9.99))
        XCTAssertEqual(run.report.counter("forecasts from file"), 7 + 1)
    }

    func testWithoutALocationTheDayTakesThePlaceOfItsFirstTimedEntry() throws {
        var evening = Harness.event("evening-hamburg", day: "2026-11-25", hour: 20, geo: (53.55, 9.99))
        evening.location = "Hamburg"
        let allDay = Harness.event("all-day-munich", day: "2026-11-25", hour: nil, geo: (48.14, 11.58))
        let morning = Harness.event("morning-hamburg", day: "2026-11-25", hour: 8, location: "Hamburg, Jungfernstieg")
        var withGeo = morning
        withGeo.coordinate = Coordinate(latitude: 53.553, longitude: 9.993)
        let run = try Harness.run(events: [allDay, evening, withGeo], forecast: ["provider": "file", "path": Self.sample],
                                  cache: "/nonexistent/x.sqlite", window: ("2026-11-25", "2026-11-27"))
        XCTAssertEqual(run.headers.count, 2)
        XCTAssertEqual(run.headers[0].weather?.place, Coordinate(latitude: 53.55, longitude: 9.99))
        XCTAssertEqual(run.headers[0].weather?.placeName, "Hamburg, Jungfernstieg")
        // A day with no entry has no place: no weather, and says why.
        XCTAssertEqual(run.headers[1].weather?.result, .missing(reason: "no-location"))
        XCTAssertEqual(run.ownForecasts, ["all-day-munich 2026-11-25"])
    }

    func testEntryDistanceIsAnOption() throws {
        let run = try Harness.run(events: events, forecast: ["provider": "file", "path": Self.sample, "entry_distance_km": 5], cache: "/nonexistent/x.sqlite",
                                  location: ["latitude": 52.52, "longitude": 13.41], window: ("2026-11-23", "2026-11-30"))
        XCTAssertEqual(run.ownForecasts, ["hamburg 2026-11-25", "dahlem 2026-11-27"])
    }

    func testPastDaysWithoutAnArchiveArePast() throws {
        // The file's first day is 2026-10-01: earlier days are past, later ones past its last day beyond the horizon.
        let run = try Harness.run(events: [], forecast: ["provider": "file", "path": Self.sample], cache: "/nonexistent/x.sqlite",
                                  location: ["latitude": 52.52, "longitude": 13.41], window: ("2026-09-29", "2026-10-02"))
        XCTAssertEqual(run.headers.map { $0.weather?.result }, [.missing(reason: "past"), .missing(reason: "past"), run.headers[2].weather?.result])
        XCTAssertEqual(run.headers[2].weather?.isAvailable, true)
    }
}

/// The same over HTTP, against the recorded Open-Meteo answers on the loopback server.
final class DayWeatherHTTPTests: XCTestCase {
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

    func testEmptyDaysGetWeatherAndAFarEntryKeepsItsOwnInOneRequest() throws {
        try server.route("/v1/forecast", [.init(headers: ["Content-Type": "application/json"], bodyFile: "openmeteo-munich-berlin.json")])
        let events = [
            Harness.event("a", day: "2026-11-24", hour: 9, geo: (52.5219, 13.4132)),
            Harness.event("b", day: "2026-11-24", hour: 12, geo: (52.517, 13.389)),
            Harness.event("c", day: "2026-11-24", hour: 16, geo: (52.499, 13.403)),
            Harness.event("munich", day: "2026-11-24", hour: 18, geo: (48.137, 11.575)),
        ]
        let run = try Harness.run(events: events, forecast: options(), cache: Harness.temporaryCache(),
                                  location: ["latitude": 52.52, "longitude": 13.41], window: ("2026-11-23", "2026-11-26"))
        let requests = try server.requests(to: "/v1/forecast")
        XCTAssertEqual(requests.count, 1)
        XCTAssertEqual(requests.first?.query, "latitude=48.14,52.52&longitude=11.58,13.41&" + ForecastStageTests.dailyQuery
                       + "&timezone=Europe/Berlin&start_date=2026-11-23&end_date=2026-11-25")
        XCTAssertEqual(run.headers.map(\.date.iso8601), ["2026-11-23", "2026-11-24", "2026-11-25"])
        // Berlin's recorded values (Tests/Fixtures/forecast/openmeteo-munich-berlin.json), one per day.
        XCTAssertEqual(run.headers.map { $0.weather?.forecast?.weatherCode }, [3, 80, 2])
        XCTAssertEqual(run.headers.map { $0.weather?.forecast?.temperatureMax }, [4.2, 6.0, 5.5])
        XCTAssertEqual(run.ownForecasts, ["munich 2026-11-24"])
        XCTAssertEqual(run.byKey["munich 2026-11-24"], .forecast(DailyForecast(weatherCode: 3, summary: "Overcast", temperatureMax: 3.4, temperatureMin: -1.9, precipitationProbability: 23, precipitationAmount: 0.0, windSpeedMax: 9.7, units: "metric", provider: "open-meteo"), place: Coordinate(latitude: 48.14, longitude: 11.58)))
        // fetched_at: the answer's HTTP Date, a time of this test run.
        let fetched = try XCTUnwrap(run.headers[0].weather?.forecast?.fetchedAt)
        XCTAssertLessThan(abs(Double(fetched) - Date().timeIntervalSince1970), 120)
    }

    func testPastDaysAreAskedForByDefault() throws {
        try server.route("/v1/forecast", [.init(headers: ["Content-Type": "application/json"], bodyFile: "openmeteo-berlin.json")])
        let run = try Harness.run(events: [], forecast: options(), cache: Harness.temporaryCache(),
                                  location: ["latitude": 52.52, "longitude": 13.41], window: ("2026-11-22", "2026-11-24"))
        XCTAssertEqual(try server.requests(to: "/v1/forecast").first?.query.contains("start_date=2026-11-22&end_date=2026-11-23"), true)
        // The recorded answer starts on 2026-11-23: the day before is not in it.
        XCTAssertEqual(run.headers.map { $0.weather?.result.isAvailableForTest }, [false, true])
        XCTAssertEqual(run.headers[0].weather?.reason, "unavailable")
    }
}

extension ForecastResult {
    var isAvailableForTest: Bool {
        if case .forecast = self { return true }
        return false
    }
}
