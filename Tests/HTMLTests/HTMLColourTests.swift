@testable import Exporters
import CalpipeKit
import Foundation
import Pipeline
import XCTest

/// Issue 25, point 10: a merged agenda of several published feeds on one page: a colour per source (the
/// sources' `color` option, the feeds' own calendar colours), a legend of sources, the strip over the list's
/// days, and `calpipe convert` titling the page from its input. Fixtures: Tests/Fixtures/html (README there).
final class HTMLColourTests: XCTestCase {
    static let fixtures = HTMLTestSupport.root.appendingPathComponent("Tests/Fixtures/html")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// The user's trial: the demo's sample feed plus five published feeds, one of them coloured by the pipeline.
    static var feeds: [[String: Any]] { [
        ["type": "ics", "name": "Family", "path": fixture("icloud-family.ics")],
        ["type": "ics", "name": "Holidays", "path": fixture("google-holidays-de.ics")],
        ["type": "ics", "name": "DevConf", "path": fixture("rfc7986-devconf.ics"), "color": "SlateBlue"],
        ["type": "ics", "name": "Team", "path": fixture("outlook-team.ics")],
        ["type": "jcal", "name": "Rooms", "path": fixture("jcal-colour.json")],
    ] }

    private func load(_ pipeline: String) throws -> PipelineDefinition {
        let loader = PipelineLoader(registry: .standard, environment: ["TZ": "UTC"], now: HTMLTestSupport.now)
        return try loader.load(json: try JSONParser.parse(pipeline), file: "p.json", baseDirectory: URL(fileURLWithPath: "/tmp"))
    }

    /// Point 1: every source takes `color` (declared once, by the registry): `calpipe plugins` and `calpipe schema`
    /// show it, and validation reports a value that is not a colour with its JSON path and the closest name.
    func testEverySourceTakesAColourAndABadOneIsReportedWithTheClosestName() throws {
        let registry = PluginRegistry.standard
        XCTAssertGreaterThanOrEqual(registry.sources.count, 6)
        for source in registry.sources {
            XCTAssertEqual(source.options.first { $0.name == "color" }?.kind, .color, source.type)
        }
        let schema = JSONWriter(pretty: false).string(registry.pipelineSchema())
        XCTAssertEqual(schema.components(separatedBy: #""color":{"description":"the colour of the source's events"#).count - 1, registry.sources.count)

        let sink = #""sinks": [{"type": "ics", "path": "o.ics"}]"#
        XCTAssertThrowsError(try load(##"{"sources": [{"type": "ics", "path": "a.ics", "color": "blu"}, {"type": "jcal", "path": "b.json", "color": "#12345"}, {"type": "json", "path": "c.json", "color": 3}], \##(sink)}"##)) { error in
            XCTAssertEqual((error as? ConfigErrors)?.issues.map(\.description), [
                ##"p.json: sources[0].color: unknown colour "blu" (expected "#RRGGBB", "#RGB" or a CSS colour name such as "teal"); did you mean "blue"?"##,
                ##"p.json: sources[1].color: "#12345" is not a colour (expected "#RRGGBB", "#RGB" or a CSS colour name such as "teal")"##,
                ##"p.json: sources[2].color: expected a colour ("#RRGGBB", "#RGB" or a CSS colour name), got a number 3"##,
            ])
        }
        let good = try load(##"{"sources": [{"type": "ics", "path": "a.ics", "color": "#0B8043"}, {"type": "ics", "path": "b.ics", "color": "#abc"}, {"type": "ics", "path": "c.ics", "color": "RebeccaPurple"}, {"type": "ics", "path": "d.ics"}], \##(sink)}"##)
        XCTAssertEqual(good.sourceColors, ["#0b8043", "#aabbcc", "#663399", nil])
        XCTAssertEqual(Array(good.planLines.filter { $0.hasPrefix("    ") && $0.contains(". ics ") }.prefix(4)),
                       ["    1. ics a.ics, colour #0b8043", "    2. ics b.ics, colour #aabbcc", "    3. ics c.ics, colour #663399", "    4. ics d.ics"])
    }

    /// Point 2: the feeds' own colours (iCloud's X-APPLE-CALENDAR-COLOR with its opacity, Google's X-WR-CALCOLOR,
    /// RFC 7986 COLOR as a CSS name, in ICS and jCal) colour their events; an event's own COLOR wins, then the
    /// source's `color`, then the calendar's; nothing set: the page's accent (no `--c`).
    func testFeedColoursAndTheirPrecedence() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rendered = try HTMLTestSupport.renderDemo(into: folder, extraSources: Self.feeds)
        let page = try HTMLTestSupport.checkPage(rendered.page)
        XCTAssertEqual(page["errors"] as? [String], [])
        XCTAssertEqual(rendered.report.warnings, [])

        var colour: [String: String?] = [:]
        for section in try XCTUnwrap(page["sections"] as? [[String: Any]]) {
            for entry in section["entries"] as! [[String: Any]] { colour[entry["title"] as! String] = entry["color"] as? String }
        }
        XCTAssertEqual(colour["Grandma's birthday coffee"], "#ff2968", "iCloud: X-APPLE-CALENDAR-COLOR #FF2968FF without its opacity")
        XCTAssertEqual(colour["School holidays start"], "#ff2968")
        XCTAssertEqual(colour["Reformation Day"], "#0b8043", "Google: X-WR-CALCOLOR")
        XCTAssertEqual(colour["All Saints' Day"], "#ffd700", "the event's own COLOR:gold wins over the calendar's")
        XCTAssertEqual(colour["Keynote: Calendars at scale"], "#6a5acd", "the source's color (slateblue) wins over the feed's COLOR:darkorange")
        XCTAssertEqual(colour["Workshop: RRULE in anger"], "#dc143c", "the event's own COLOR:crimson wins over the source's color")
        XCTAssertEqual(colour["Team sync"], .some(nil), "Outlook: no colour anywhere: the accent")
        XCTAssertEqual(colour["Room 4.12 booked"], "#808000", "jCal: the calendar's color olive")
        XCTAssertTrue(rendered.html.contains("<li class=\"entry\"><span class=\"swatch\""), "an entry without a colour has no --c (the CSS falls back to the accent)")

        // The readers keep the calendar's colour in the events' metadata, beside its name.
        let byTitle = Dictionary(rendered.days.map { ($0.event.title ?? "", $0.event) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(byTitle["Keynote: Calendars at scale"]?.metadata, ["source": "DevConf", "calendar": "DevConf 2026", "calendar_color": "#ff8c00"])
        XCTAssertEqual(byTitle["Room 4.12 booked"]?.metadata, ["source": "Rooms", "calendar": "Room bookings", "calendar_color": "#808000"])
        XCTAssertEqual(byTitle["Team sync"]?.metadata, ["source": "Team", "calendar": "Team"])

        // xCal carries the same calendar properties.
        let xcal = try HTMLTestSupport.renderDemo(into: folder, extraSources: [["type": "xcal", "name": "Venue", "path": Self.fixture("xcal-colour.xml")]])
        let tour = try XCTUnwrap(xcal.days.first { $0.event.title == "Venue tour" })
        XCTAssertEqual(tour.event.metadata, ["source": "Venue", "calendar": "Venue", "calendar_color": "#1badf8"])
        XCTAssertTrue(xcal.html.contains("<li class=\"entry\" style=\"--c:#1badf8\">"))

        // RFC 7986 COLOR wins over the X- properties whatever their order; a value that is not a colour is left out.
        let mixed = folder.appendingPathComponent("mixed.ics")
        let lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN", "X-WR-CALCOLOR:#123456", "X-APPLE-CALENDAR-COLOR:not-a-colour",
                     "COLOR:teal", "X-APPLE-CALENDAR-COLOR:#654321", "BEGIN:VEVENT", "UID:m1", "DTSTAMP:20261001T000000Z",
                     "DTSTART:20261020T100000Z", "SUMMARY:Mixed", "END:VEVENT", "END:VCALENDAR", ""]
        try lines.joined(separator: "\r\n").write(to: mixed, atomically: true, encoding: .utf8)
        let second = try HTMLTestSupport.renderDemo(into: folder, extraSources: [["type": "ics", "name": "mixed", "path": mixed.path]])
        XCTAssertEqual(second.days.first { $0.event.uid == "m1" }?.event.metadata["calendar_color"], "#008080")
    }

    /// Worker threads make the events of the `ics` source with the calendar's colour the reading thread would give
    /// them, and a second VCALENDAR in the same file starts without the first one's colour.
    func testCalendarColourWithWorkersAndPerCalendar() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN", "X-WR-CALNAME:Big", "X-APPLE-CALENDAR-COLOR:#1BADF8FF"]
        for i in 0..<300 {
            lines += ["BEGIN:VEVENT", "UID:big-\(i)", "DTSTAMP:20261001T000000Z", "DTSTART:202610\(12 + i % 20)T\(10 + i % 8)0000Z", "SUMMARY:Big \(i)", "END:VEVENT"]
        }
        lines += ["END:VCALENDAR", "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN", "X-WR-CALNAME:Small",
                  "BEGIN:VEVENT", "UID:small-1", "DTSTAMP:20261001T000000Z", "DTSTART:20261020T100000Z", "SUMMARY:Small", "END:VEVENT", "END:VCALENDAR", ""]
        let feed = folder.appendingPathComponent("two.ics")
        try lines.joined(separator: "\r\n").write(to: feed, atomically: true, encoding: .utf8)
        for workers in [0, 2] {
            let rendered = try HTMLTestSupport.renderDemo(into: folder, extraSources: [["type": "ics", "name": "two", "path": feed.path, "workers": workers]])
            let events = rendered.days.filter { $0.event.metadata["source"] == "two" }.map(\.event)
            let big = events.filter { $0.uid.hasPrefix("big-") }
            XCTAssertEqual(big.count, 300, "workers \(workers)")
            XCTAssertTrue(big.allSatisfy { $0.metadata == ["source": "two", "calendar": "Big", "calendar_color": "#1badf8"] }, "workers \(workers)")
            XCTAssertEqual(events.first { $0.uid == "small-1" }?.metadata, ["source": "two", "calendar": "Small"], "workers \(workers)")
        }
    }

    /// Point 3: the legend: each source's name with its colour's dot, once, in the header; each entry names its
    /// source in text (the colour is not the only clue); in light and dark mode, as Chromium draws it.
    func testLegendOfSourcesWithTheirColours() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rendered = try HTMLTestSupport.renderDemo(into: folder, extraSources: Self.feeds)
        let page = try HTMLTestSupport.checkPage(rendered.page)
        let legend = try XCTUnwrap(page["legend"] as? [[String: Any]])
        XCTAssertEqual(legend.map { $0["text"] as? String }, ["sample", "Family", "Holidays", "DevConf", "Team", "Rooms"])
        XCTAssertEqual(legend.map { $0["color"] as? String }, [nil, "#ff2968", "#0b8043", "#6a5acd", nil, "#808000"])
        XCTAssertEqual(legend.first?["label"] as? String, "Calendars")
        XCTAssertEqual(rendered.html.components(separatedBy: "<ul class=\"legend\"").count - 1, 1, "one legend")
        let header = try XCTUnwrap(rendered.html.range(of: "<header class=\"top\">").map { rendered.html[$0.lowerBound...] })
        XCTAssertTrue(header.prefix(upTo: header.range(of: "</header>")!.lowerBound).contains("class=\"legend\""), "in the page's header")

        let sections = try XCTUnwrap(page["sections"] as? [[String: Any]])
        let thursday = try XCTUnwrap(sections.first { $0["id"] as? String == "d-2026-10-22" })
        let devconf = (thursday["entries"] as! [[String: Any]]).filter { ($0["title"] as! String).contains(":") }
        // "Calendar: " is for screen readers (class "sr"); the name is seen.
        XCTAssertEqual(devconf.map { $0["source"] as? String }, ["Calendar: DevConf", "Calendar: DevConf"])
        let all = sections.flatMap { $0["entries"] as! [[String: Any]] }
        XCTAssertTrue(all.allSatisfy { $0["source"] as? String != nil }, "every entry names its source")

        let other = folder.appendingPathComponent("single")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        // A source without `name` is shown by its calendar's name (X-WR-CALNAME), else by its path.
        let unnamed = try HTMLTestSupport.renderDemo(into: other, extraSources: [["type": "ics", "path": Self.fixture("icloud-family.ics")],
                                                                                  ["type": "ics", "path": Self.fixture("outlook-team.ics"), "color": "teal"]])
        let unnamedPage = try HTMLTestSupport.checkPage(unnamed.page)
        XCTAssertEqual((unnamedPage["legend"] as? [[String: Any]])?.map { $0["text"] as? String }, ["sample", "Family", "Team"])
        let friday = try XCTUnwrap((unnamedPage["sections"] as? [[String: Any]])?.first { $0["id"] as? String == "d-2026-10-23" })
        XCTAssertTrue((friday["entries"] as! [[String: Any]]).contains { $0["title"] as? String == "School holidays start" && $0["source"] as? String == "Calendar: Family" })

        // One source without a colour: no legend, no source line (as before).
        let single = try HTMLTestSupport.renderDemo(into: other)
        XCTAssertFalse(single.html.contains("class=\"legend\"") || single.html.contains("class=\"src\""))

        // Drawn: the legend's and the entries' dots in their colours, light and dark.
        _ = try HTMLTestSupport.requireTool("chromium")
        for dark in [false, true] {
            let png = folder.appendingPathComponent("legend-\(dark).png")
            var arguments = ["--window-size=1280,900", "--screenshot=" + png.path]
            if dark { arguments.append("--blink-settings=preferredColorScheme=0") }
            let result = try HTMLTestSupport.chromium(arguments + [rendered.page.absoluteString], profile: folder)
            XCTAssertEqual(result.status, 0, result.stderr.suffix(2000).description)
            let stats = try HTMLTestSupport.pngStats(png, counting: ["ff2968", "0b8043", "6a5acd", "808000"])
            if dark { XCTAssertLessThan(stats["mean_luminance"] ?? 255, 80, "\(stats)") } else { XCTAssertGreaterThan(stats["mean_luminance"] ?? 0, 180, "\(stats)") }
            for hex in ["ff2968", "0b8043", "6a5acd", "808000"] {
                XCTAssertGreaterThan(stats["count_" + hex] ?? 0, 20, "dark \(dark): a dot of #\(hex): \(stats)")
            }
        }
    }

    /// Point 4: by default the strip shows the list's days (whole weeks of the window), whatever the window's length.
    func testStripShowsTheListsDaysByDefault() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Eleven weeks from a Wednesday to a Thursday: longer than the 7 + 34 days the strip used to show.
        let rendered = try HTMLTestSupport.renderDemo(into: folder, window: ("2026-10-14", "2026-12-31"))
        let page = try HTMLTestSupport.checkPage(rendered.page)
        let sections = try XCTUnwrap(page["sections"] as? [[String: Any]])
        XCTAssertEqual(sections.count, 78)
        XCTAssertEqual(page["strip"] as? [String], sections.map { "#" + ($0["id"] as! String) })
        // Monday 12 October to Sunday 3 January: 12 whole weeks, the days outside the window greyed.
        XCTAssertEqual(page["strip_cells"] as? Int, 84)
        XCTAssertTrue(rendered.html.contains("<td class=\"m0 out\"><span class=\"cell\" aria-hidden=\"true\"><span class=\"mn\">Oct</span><span class=\"n\">12</span>"))
        // A short window: the strip is its week, not six weeks around today.
        let week = try HTMLTestSupport.renderDemo(into: folder, window: ("2026-10-19", "2026-10-26"))
        let weekPage = try HTMLTestSupport.checkPage(week.page)
        XCTAssertEqual(weekPage["strip"] as? [String], (19...25).map { "#d-2026-10-\($0)" })
        XCTAssertEqual(weekPage["strip_cells"] as? Int, 7)
        // days_before / days_after still choose days around today.
        let around = try HTMLTestSupport.renderDemo(into: folder, sinkOptions: ["days_before": 2, "days_after": 5], window: ("2026-10-14", "2026-12-31"))
        XCTAssertEqual(try HTMLTestSupport.checkPage(around.page)["strip_cells"] as? Int, 14)
    }

    /// The example of docs/html.md (pipelines/merged-feeds.json) runs: five feeds, five colours, one legend.
    func testMergedFeedsExampleRuns() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("merged.html")
        // A copy in the test's folder (a run locks its pipeline file with a file beside it), the feeds where they are.
        let text = try String(contentsOf: HTMLTestSupport.root.appendingPathComponent("pipelines/merged-feeds.json"), encoding: .utf8)
        let pipeline = folder.appendingPathComponent("merged-feeds.json").path
        try text.replacingOccurrences(of: "../Tests/Fixtures/html/", with: Self.fixtures.path + "/").write(toFile: pipeline, atomically: true, encoding: .utf8)
        let run = try HTMLTestSupport.run(AgendaTerminalTests.binary.path, ["run", pipeline, "--set", "sinks[0].path=" + page.path, "--quiet"],
                                          environment: ["TZ": "Europe/Berlin", "HOME": folder.path, "SOURCE_DATE_EPOCH": "1792569600"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        let checked = try HTMLTestSupport.checkPage(page)
        XCTAssertEqual(checked["errors"] as? [String], [])
        let legend = try XCTUnwrap(checked["legend"] as? [[String: Any]])
        XCTAssertEqual(legend.map { $0["text"] as? String }, ["Family", "Holidays", "DevConf", "Team", "Rooms"])
        XCTAssertEqual(legend.map { $0["color"] as? String }, ["#ff2968", "#0b8043", "#6a5acd", "#2e7d32", "#808000"])
        XCTAssertEqual(checked["h1"] as? [String], ["Family and work"])
    }

    /// `calpipe agenda` on a pipeline dots its entries in the same colours as the page.
    func testTerminalAgendaUsesTheSameColours() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = try String(contentsOf: HTMLTestSupport.root.appendingPathComponent("pipelines/merged-feeds.json"), encoding: .utf8)
        let pipeline = folder.appendingPathComponent("merged-feeds.json").path
        try text.replacingOccurrences(of: "../Tests/Fixtures/html/", with: Self.fixtures.path + "/").write(toFile: pipeline, atomically: true, encoding: .utf8)
        let result = try HTMLTestSupport.run(AgendaTerminalTests.binary.path, ["agenda", pipeline, "--color", "always", "--width", "100",
                                                                             "--from", "2026-10-20", "--to", "2026-10-24"],
                                             environment: ["TZ": "Europe/Berlin", "HOME": folder.path, "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.text.split(separator: "\n")
        func dot(of title: String) -> String? {
            guard let line = lines.first(where: { $0.contains(title) }), let range = line.range(of: "\u{1B}[") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "m" })
        }
        XCTAssertEqual(dot(of: "Team sync"), "38;2;46;125;50", "the source's color #2e7d32")
        XCTAssertEqual(dot(of: "Room 4.12 booked"), "38;2;128;128;0", "the jCal calendar's olive")
        XCTAssertEqual(dot(of: "Keynote"), "38;2;106;90;205", "DevConf's color slateblue over the feed's darkorange")
        XCTAssertEqual(dot(of: "School holidays start"), "38;2;255;41;104", "iCloud's X-APPLE-CALENDAR-COLOR")
    }

    /// Point 5: `calpipe convert F.ics -o x.html` titles the page with the calendar's name, else the input's name.
    func testConvertTitlesThePageFromItsInput() throws {
        let folder = try HTMLTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = AgendaTerminalTests.binary.path
        let cases = [("icloud-family.ics", "Family"), ("rfc7986-devconf.ics", "DevConf 2026"), ("jcal-colour.json", "Room bookings")]
        for (input, title) in cases {
            let page = folder.appendingPathComponent("x.html")
            let result = try HTMLTestSupport.run(binary, ["convert", Self.fixture(input), "-o", page.path, "--from", "2026-10-01", "--to", "2026-11-30",
                                                          "--tz", "Europe/Berlin", "--quiet"], environment: ["TZ": "Europe/Berlin", "HOME": folder.path])
            XCTAssertEqual(result.status, 0, result.stderr)
            let checked = try HTMLTestSupport.checkPage(page)
            XCTAssertEqual(checked["title"] as? String, title, input)
            XCTAssertEqual(checked["h1"] as? [String], [title], input)
            // One source, with a calendar colour: the legend names it by its calendar, not by the input's path.
            XCTAssertEqual((checked["legend"] as? [[String: Any]])?.map { $0["text"] as? String }, [title], input)
        }
        // No calendar name (calpipe's JSON): the input file's name without its extension.
        let page = folder.appendingPathComponent("week.html")
        let result = try HTMLTestSupport.run(binary, ["convert", HTMLTestSupport.root.appendingPathComponent("data/agenda.json").path, "-o", page.path,
                                                      "--from", "2026-10-19", "--to", "2026-10-26", "--tz", "Europe/Berlin", "--quiet"],
                                             environment: ["TZ": "Europe/Berlin", "HOME": folder.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try HTMLTestSupport.checkPage(page)["h1"] as? [String], ["agenda"])
        // A pipeline's written name (or the sink's title) still wins over the calendar's name.
        let named = try HTMLTestSupport.renderDemo(into: folder, sinkOptions: ["title": NSNull()], extraSources: [Self.feeds[0]])
        XCTAssertEqual(try HTMLTestSupport.checkPage(named.page)["h1"] as? [String], ["demo"])
    }
}
