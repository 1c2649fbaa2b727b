@testable import Exporters
import Foundation
import Pipeline
import XCTest

/// The `html` sink on the demo pipeline, checked with python html5lib (Tests/HTMLTests/check_page.py).
final class HTMLPageTests: XCTestCase {
    func testDemoPageIsWellFormedWithEveryDayOfTheWindowAndEveryEntry() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rendered = try HTMLTestSupport.renderDemo(into: folder)
        let page = try HTMLTestSupport.checkPage(rendered.page)

        XCTAssertEqual(page["errors"] as? [String], [], "html5lib parse errors")
        XCTAssertEqual(page["external"] as? [String], [], "references to other addresses")
        XCTAssertEqual(page["ids"] as? [String], [], "duplicated ids")
        // No script at all: the strip's days are plain links.
        XCTAssertEqual(page["scripts"] as? Int, 0)
        XCTAssertEqual(page["lang"] as? String, "en-GB")
        XCTAssertEqual(page["h1"] as? [String], ["Team agenda"])

        // One section per day of the window, in order, empty days included.
        let window = try XCTUnwrap(rendered.window)
        let sections = try XCTUnwrap(page["sections"] as? [[String: Any]])
        let expectedIDs = (window.from.daysSinceEpoch..<window.to.daysSinceEpoch).map { "d-" + CivilDate(daysSinceEpoch: $0).iso8601 }
        XCTAssertEqual(sections.map { $0["id"] as? String }, expectedIDs)
        XCTAssertEqual(sections.count, 42)

        // Every entry, in agenda order, under its day.
        var byDay: [String: [String]] = [:]
        for entry in rendered.days.sorted(by: DayEntry.agendaOrder) {
            byDay["d-" + entry.day.iso8601, default: []].append(entry.event.title ?? "(no title)")
        }
        XCTAssertGreaterThan(rendered.days.count, 60)
        var shown = 0
        for section in sections {
            let id = section["id"] as! String
            let titles = section["titles"] as! [String]
            XCTAssertEqual(titles, byDay[id] ?? [], id)
            XCTAssertEqual(section["empty"] as? Bool, byDay[id] == nil, "\(id): \"No events\" exactly on empty days")
            shown += titles.count
        }
        XCTAssertEqual(shown, rendered.days.count)
        XCTAssertTrue(sections.contains { ($0["empty"] as? Bool) == true }, "the demo has empty days")

        // Headings in the locale; a weather icon with a label on days whose entries have a forecast.
        XCTAssertEqual(sections[0]["heading"] as? String, "Monday 12 October")
        XCTAssertEqual(sections[9]["heading"] as? String, "Wednesday 21 October today")
        for section in sections where !(section["titles"] as! [String]).isEmpty {
            let weather = section["weather"] as! [String?]
            XCTAssertEqual(weather.count, 1, "\(section["id"]!)")
            XCTAssertFalse((weather.first ?? nil)?.isEmpty ?? true)
        }

        // The strip: whole weeks around today, each day of the window a link to its section, today marked.
        let strip = try XCTUnwrap(page["strip"] as? [String])
        XCTAssertEqual(strip, expectedIDs.map { "#" + $0 })
        XCTAssertTrue(rendered.html.contains("<td class=\"m0 today has\"><a href=\"#d-2026-10-21\" aria-label=\"Wednesday, 21 October, 1 event\" aria-current=\"date\">"))
        XCTAssertTrue(rendered.html.contains("<span class=\"mn\">Nov</span><span class=\"n\">1</span>"), "month name on its first day")

        // An entry in full: time, duration, location, attendees as initials, the part of a split event.
        XCTAssertTrue(rendered.html.contains("<time class=\"start\" datetime=\"2026-10-13T10:30\">10:30</time><span class=\"dur\"><span class=\"sr\">for </span>45 min</span>"))
        XCTAssertTrue(rendered.html.contains("<li title=\"Ben Okafor\"><span aria-hidden=\"true\">BO</span><span class=\"sr\">Ben Okafor</span></li>"))
        XCTAssertTrue(rendered.html.contains("<span class=\"tag\">day 2 of 3</span>"))
        XCTAssertTrue(rendered.html.contains("<span class=\"start\">all day</span>"))
        // Footer: the run's time (SOURCE_DATE_EPOCH) in the pipeline's zone and the forecast's credit.
        XCTAssertTrue(rendered.html.contains("Generated <time datetime=\"2026-10-21T08:00:00Z\">21 October 2026 at 10:00</time> (Europe/Berlin) by calpipe."),
                      String(rendered.html.suffix(600)))
        XCTAssertTrue(rendered.html.contains("<p class=\"credit\">Weather data by Open-Meteo.com"))
        XCTAssertEqual(rendered.report.warnings, [])
    }

    func testSameInputAndRunTimeGiveTheSameBytes() throws {
        let a = try HTMLTestSupport.temporaryDirectory(), b = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: a); try? FileManager.default.removeItem(at: b) }
        let first = try HTMLTestSupport.renderDemo(into: a)
        let second = try HTMLTestSupport.renderDemo(into: b)
        XCTAssertEqual(first.html, second.html)
        let later = try HTMLTestSupport.renderDemo(into: b, environment: ["SOURCE_DATE_EPOCH": "1792573200"])
        XCTAssertNotEqual(first.html, later.html)
        XCTAssertEqual(first.html.replacingOccurrences(of: "2026-10-21T08:00:00Z\">21 October 2026 at 10:00", with: "2026-10-21T09:00:00Z\">21 October 2026 at 11:00"), later.html)
    }

    /// Weekday and month names through Foundation's DateFormatter (ICU on Linux), in the sink's locale.
    func testGermanLocale() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rendered = try HTMLTestSupport.renderDemo(into: folder, sinkOptions: ["locale": "de"])
        let page = try HTMLTestSupport.checkPage(rendered.page)
        XCTAssertEqual(page["errors"] as? [String], [])
        XCTAssertEqual(page["lang"] as? String, "de")
        let sections = try XCTUnwrap(page["sections"] as? [[String: Any]])
        XCTAssertEqual(sections[0]["heading"] as? String, "Montag 12. Oktober")
        XCTAssertEqual(sections[3]["heading"] as? String, "Donnerstag 15. Oktober")
        XCTAssertTrue(rendered.html.contains("<abbr title=\"Montag\">Mo</abbr>") || rendered.html.contains("<abbr title=\"Montag\">Mo.</abbr>"))
        XCTAssertTrue(rendered.html.contains("<caption>Oktober 2026 – November 2026</caption>"))

        let locale = AgendaLocale(identifier: "fr")
        XCTAssertEqual(locale.weekday(CivilDate(year: 2026, month: 10, day: 15)), "jeudi")
        XCTAssertEqual(locale.month(CivilDate(year: 2026, month: 2, day: 1)), "février")
        XCTAssertEqual(AgendaLocale(identifier: "en-US").time(CivilDateTime(year: 2026, month: 1, day: 1, hour: 16)), "4:00\u{202F}PM")
    }

    /// WCAG 2.x contrast of every text colour pair the page uses, light and dark.
    func testStandardThemeMeetsWCAGAAInBothModes() throws {
        // The formula against known values: black on white, and #767676 (the lightest grey that passes on white).
        XCTAssertEqual(try XCTUnwrap(HTMLTheme.contrast("#000000", "#ffffff")), 21, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(HTMLTheme.contrast("#767676", "#ffffff")), 4.54, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(HTMLTheme.contrast("#777777", "#fff")), 4.48, accuracy: 0.01)
        var lines: [String] = []
        for (mode, palette) in [("light", HTMLTheme.standard.light), ("dark", HTMLTheme.standard.dark)] {
            for pair in palette.textPairs {
                let ratio = try XCTUnwrap(HTMLTheme.contrast(pair.foreground, pair.background))
                lines.append("\(mode) \(pair.name): \(String(format: "%.2f", ratio))")
                XCTAssertGreaterThanOrEqual(ratio, 4.5, "\(mode): \(pair.name)")
            }
        }
        print(lines.joined(separator: "\n"))
        XCTAssertEqual(HTMLTheme.standard.contrastProblems, [])
    }

    func testThemeOptionIsCheckedAndLowContrastWarns() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        XCTAssertThrowsError(try HTMLTestSupport.renderDemo(into: folder, sinkOptions: ["theme": ["light": ["acent": "#ff0000", "text": "red"]]])) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("sinks[0].theme.light.acent: unknown option"), text)
            XCTAssertTrue(text.contains("did you mean \"accent\"?"), text)
            XCTAssertTrue(text.contains("sinks[0].theme.light.text: expected a colour as \"#rrggbb\", got \"red\""), text)
        }
        let rendered = try HTMLTestSupport.renderDemo(into: folder, sinkOptions: ["theme": ["dark": ["muted": "#444444"], "light": ["accent": "#C62828"]]])
        XCTAssertTrue(rendered.html.contains("--accent:#c62828;"))
        XCTAssertTrue(rendered.report.warnings.contains { $0.hasPrefix("html ") && $0.contains("below WCAG AA contrast (4.5:1): dark: muted on background") },
                      "\(rendered.report.warnings)")
    }

    /// A day with more entries than `max_entries_per_day` keeps the first ones in agenda order and counts the rest.
    func testEntriesPerDayAreCappedWithACount() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var events: [[String: Any]] = []
        for i in 0..<250 {
            events.append(["uid": "crowd-\(i)", "title": String(format: "Crowd %03d", i), "start": String(format: "2026-10-17T%02d:%02d:00", 8 + i / 60, i % 60),
                           "duration": "PT30M", "timezone": "Europe/Berlin"])
        }
        let feed = folder.appendingPathComponent("crowd.json")
        try JSONSerialization.data(withJSONObject: events).write(to: feed)
        let rendered = try HTMLTestSupport.renderDemo(into: folder, sinkOptions: ["max_entries_per_day": 20],
                                                      extraSources: [["type": "json", "name": "crowd", "path": feed.path]])
        let page = try HTMLTestSupport.checkPage(rendered.page)
        XCTAssertEqual(page["errors"] as? [String], [])
        let sections = try XCTUnwrap(page["sections"] as? [[String: Any]])
        let saturday = try XCTUnwrap(sections.first { $0["id"] as? String == "d-2026-10-17" })
        XCTAssertEqual(saturday["titles"] as? [String], (0..<20).map { String(format: "Crowd %03d", $0) })
        XCTAssertTrue(rendered.html.contains("<li class=\"more-entries\">+230 more</li>"))
        XCTAssertTrue(rendered.html.contains("aria-label=\"Saturday, 17 October, 250 events\""))
    }

    /// Text from a feed is escaped; a COLOR that is not a colour never reaches the style attribute.
    func testFeedTextIsEscapedAndColoursAreChecked() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let events: [[String: Any]] = [
            ["uid": "x1", "title": "<script>alert('hi')</script> & \"quotes\"", "start": "2026-10-17T10:00:00", "duration": "PT1H",
             "timezone": "Europe/Berlin", "color": "red;background:url(https://example.org/x.png)", "location": "<b>Room</b>",
             "attendees": [["name": "Zoë <Z> Ng"], ["email": "ops.team@example.org"], ["name": "A"], ["name": "B"], ["name": "C"], ["name": "D"]]],
            ["uid": "x2", "title": "Coloured", "start": "2026-10-17T11:00:00", "duration": "PT1H", "timezone": "Europe/Berlin", "color": "Teal"],
        ]
        let feed = folder.appendingPathComponent("odd.json")
        try JSONSerialization.data(withJSONObject: events).write(to: feed)
        let rendered = try HTMLTestSupport.renderDemo(into: folder, extraSources: [["type": "json", "name": "odd", "path": feed.path]])
        let page = try HTMLTestSupport.checkPage(rendered.page)
        XCTAssertEqual(page["errors"] as? [String], [])
        XCTAssertEqual(page["external"] as? [String], [])
        XCTAssertEqual(page["scripts"] as? Int, 0)
        let sections = try XCTUnwrap(page["sections"] as? [[String: Any]])
        let saturday = try XCTUnwrap(sections.first { $0["id"] as? String == "d-2026-10-17" })
        XCTAssertEqual(saturday["titles"] as? [String], ["<script>alert('hi')</script> & \"quotes\"", "Coloured"])
        XCTAssertFalse(rendered.html.contains("example.org/x.png"))
        XCTAssertTrue(rendered.html.contains("<li class=\"entry\" style=\"--c:#008080\">"), "a CSS name as #rrggbb")
        // Six attendees: three initials, then "+3".
        XCTAssertTrue(rendered.html.contains("<ul class=\"people\" aria-label=\"6 attendees\"><li title=\"Zoë &lt;Z&gt; Ng\"><span aria-hidden=\"true\">ZN</span>"))
        XCTAssertTrue(rendered.html.contains("<span aria-hidden=\"true\">OT</span>"))
        XCTAssertTrue(rendered.html.contains("<li class=\"more\"><span aria-hidden=\"true\">+3</span><span class=\"sr\">and 3 more</span></li>"))
    }

    func testAgendaText() {
        XCTAssertEqual(AgendaText.duration(seconds: 1800), "30 min")
        XCTAssertEqual(AgendaText.duration(seconds: 5400), "1 h 30 min")
        XCTAssertEqual(AgendaText.duration(seconds: 3600 * 25), "1 d 1 h")
        XCTAssertEqual(AgendaText.initials(name: "Ines García", email: nil), "IG")
        XCTAssertEqual(AgendaText.initials(name: "  ", email: "ben.okafor@example.org"), "BO")
        XCTAssertEqual(AgendaText.initials(name: "Greta Maria Müller", email: nil), "GM")
        XCTAssertEqual(AgendaText.initials(name: nil, email: nil), "?")
        XCTAssertEqual(AgendaText.weatherIcon(code: 0), "clear-day")
        XCTAssertEqual(AgendaText.weatherIcon(code: 2), "partly-cloudy-day")
        XCTAssertEqual(AgendaText.weatherIcon(code: 63), "rain")
        XCTAssertEqual(AgendaText.weatherIcon(code: 95), "thunderstorm")
        XCTAssertNil(AgendaText.weatherIcon(code: 42))
        // Every icon a code can give has its SVG symbol in the page.
        let names = Set((0...99).compactMap { AgendaText.weatherIcon(code: $0) })
        XCTAssertEqual(names.count, 9)
        for name in names { XCTAssertTrue(HTMLWeatherIcons.definitions.contains("<symbol id=\"wx-\(name)\""), name) }
    }

    /// The strip covers whole weeks around today, moved inside the window when today is outside it.
    func testStripAroundToday() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Today (2026-11-25) after the window: the strip ends with the window's last week.
        let late = try HTMLTestSupport.renderDemo(into: folder, sinkOptions: ["days_before": 3, "days_after": 10],
                                                  environment: ["SOURCE_DATE_EPOCH": "1795600000"], now: Date(timeIntervalSince1970: 1_795_600_000))
        let page = try HTMLTestSupport.checkPage(late.page)
        let strip = try XCTUnwrap(page["strip"] as? [String])
        // 2026-11-09 (Monday) to 2026-11-22 (Sunday): two weeks, all inside the window.
        XCTAssertEqual(strip.first, "#d-2026-11-09")
        XCTAssertEqual(strip.last, "#d-2026-11-22")
        XCTAssertEqual(strip.count, 14)
        XCTAssertFalse(late.html.contains("aria-current") || late.html.contains("<section class=\"day is-today\"") || late.html.contains("badge\">today"),
                       "no day of the window is today")
    }

    /// Without a pipeline window the page shows the strip's days: whole weeks around today.
    func testWithoutAWindowThePageShowsTheStripsDays() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rendered = try HTMLTestSupport.renderDemo(into: folder, sinkOptions: ["days_before": 2, "days_after": 5], noWindow: true)
        let page = try HTMLTestSupport.checkPage(rendered.page)
        XCTAssertEqual(page["errors"] as? [String], [])
        let sections = try XCTUnwrap(page["sections"] as? [[String: Any]])
        // Today is Wednesday 2026-10-21: from Monday the 19th to Monday the 26th, the days of the strip's two weeks
        // that are within 2 days before and 5 after are the agenda; the strip shows their whole weeks.
        XCTAssertEqual(sections.map { $0["id"] as? String }, (19...26).map { "d-2026-10-\($0)" })
        XCTAssertEqual(page["strip"] as? [String], (19...26).map { "#d-2026-10-\($0)" })
        XCTAssertTrue(rendered.html.contains("<td class=\"m0 out\"><span class=\"cell\" aria-hidden=\"true\"><span class=\"n\">27</span>"))
    }

    /// A day given its own weather (the per-day model) shows it, empty days included, before any entry's forecast.
    func testADaysOwnWeatherWinsAndEmptyDaysShowIt() throws {
        let zone = try XCTUnwrap(Zone.system(identifier: "Europe/Berlin"))
        let window = Window(from: CivilDate(year: 2026, month: 10, day: 12), to: CivilDate(year: 2026, month: 10, day: 14))
        let environment = PipelineEnvironment(pipelineFile: "t.json", baseDirectory: URL(fileURLWithPath: "/tmp"), name: "t", zone: zone,
                                              window: window, environment: ["SOURCE_DATE_EPOCH": "0"], zones: ZoneDatabase(), today: window.from)
        let layout = HTMLLayout(environment: environment, daysBefore: 0, daysAfter: 1)
        var days = HTMLDayCollector(cap: 10)
        let overcast = DailyForecast(weatherCode: 3, summary: "Overcast", temperatureMax: 5.4, temperatureMin: -0.4, provider: "metno")
        days.setWeather(.forecast(overcast, place: Coordinate(latitude: 52.5, longitude: 13.4)), forDay: window.from.daysSinceEpoch + 1)
        let page = HTMLPage(settings: HTMLSink.Settings(title: "t"), layout: layout, days: days, locale: AgendaLocale(identifier: "en-GB"),
                            zone: zone, generatedAt: 0).render()
        XCTAssertTrue(page.contains("<section class=\"day\" id=\"d-2026-10-13\" aria-labelledby=\"h-d-2026-10-13\">\n<header class=\"day-head\"><h2 id=\"h-d-2026-10-13\"><span class=\"wd\">Tuesday</span> <span class=\"dm\">13 October</span></h2><p class=\"wx\"><svg class=\"wxi\" viewBox=\"0 0 24 24\" role=\"img\" aria-label=\"Overcast\"><title>Overcast</title><use href=\"#wx-cloudy\"/></svg><span class=\"wxs\" aria-hidden=\"true\">Overcast</span><span class=\"hi\"><span class=\"sr\">high </span>5°</span><span class=\"lo\"><span class=\"sr\">low </span>0°</span></p></header>\n<p class=\"empty\">No events</p>"), page)
        XCTAssertTrue(page.contains("<p class=\"credit\">Weather data from MET Norway"))
    }
}
