import CalpipeKit
import CalXML
@testable import Exporters
import Foundation
import Pipeline
import XCTest
@testable import Importers

/// The calendar sinks (ics, xcal, jcal) as a pipeline file configures them: the calendar's metadata (issue 18
/// item 8) and well-formed output whatever the kept components are called (issue 16 item 1).
final class CalendarExportTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-calendar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private var registry: PluginRegistry { .standard }

    private func loader(_ environment: [String: String] = [:]) -> PipelineLoader {
        PipelineLoader(registry: registry, environment: environment, zones: TestSupport.zones)
    }

    private static let feed = """
        [{"uid": "a@example.com", "title": "Planning", "start": "2026-11-23T09:00:00", "timezone": "Europe/Berlin", "duration": "PT1H"}]
        """

    /// Runs a pipeline with one json source and the given sinks; returns the context (warnings) .
    @discardableResult
    private func run(_ sinks: String, name: String = "team-agenda", environment: [String: String] = ["SOURCE_DATE_EPOCH": "1795000000"],
                     feed: String = CalendarExportTests.feed) throws -> RunContext {
        try feed.write(to: directory.appendingPathComponent("feed.json"), atomically: true, encoding: .utf8)
        let json = try JSONParser.parse(#"{"name": "\#(name)", "timezone": "UTC", "sources": [{"type": "json", "path": "feed.json"}], "sinks": \#(sinks)}"#)
        let pipeline = try loader(environment).load(json: json, file: "p.json", baseDirectory: directory)
        let context = RunContext(environment: pipeline.environment, quiet: true)
        try Runner().run(pipeline, context: context)
        return context
    }

    private func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    func testCalendarMetadataInEveryFormat() throws {
        try run(##"""
            [{"type": "ics", "path": "a.ics", "refresh_interval": "1h", "color": "#4682b4"},
             {"type": "xcal", "path": "a.xml", "calendar_name": "Team <A&B>", "refresh_interval": "P1D", "color": "SteelBlue"},
             {"type": "jcal", "path": "a.jcal", "refresh_interval": "30m"}]
            """##)
        let ics = try text("a.ics")
        XCTAssertTrue(ics.hasPrefix([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calpipe//calpipe \(CalpipeVersion.current)//EN", "CALSCALE:GREGORIAN",
            "NAME:team-agenda", "X-WR-CALNAME:team-agenda", "REFRESH-INTERVAL;VALUE=DURATION:PT1H", "X-PUBLISHED-TTL:PT1H", "COLOR:steelblue",
            "X-APPLE-CALENDAR-COLOR:#4682b4", "BEGIN:VTIMEZONE", "",
        ].joined(separator: "\r\n")), ics)
        // The event has no DTSTAMP: the run's time (SOURCE_DATE_EPOCH 1795000000 = 2026-11-18T11:06:40Z), not 1970.
        XCTAssertTrue(ics.contains("\r\nDTSTAMP:20261118T110640Z\r\n"), ics)
        let xml = try text("a.xml")
        XCTAssertTrue(xml.contains("""
               <name><text>Team &lt;A&amp;B&gt;</text></name>
               <x-wr-calname><text>Team &lt;A&amp;B&gt;</text></x-wr-calname>
               <refresh-interval><duration>P1D</duration></refresh-interval>
               <x-published-ttl><unknown>P1D</unknown></x-published-ttl>
               <color><text>steelblue</text></color>
            """), xml)
        // A name given is all there is: no exact colour beside it.
        XCTAssertFalse(xml.contains("x-apple-calendar-color"), xml)
        XCTAssertTrue(xml.contains("<dtstamp><date-time>2026-11-18T11:06:40Z</date-time></dtstamp>"), xml)
        let jcal = try text("a.jcal")
        XCTAssertTrue(jcal.contains("""
                ["name", {}, "text", "team-agenda"],
                ["x-wr-calname", {}, "text", "team-agenda"],
                ["refresh-interval", {}, "duration", "PT30M"],
                ["x-published-ttl", {}, "unknown", "PT30M"]
            """), jcal)
        // The three read back with the same event.
        for (name, source) in [("a.ics", ICSSource(input: spec("a.ics")) as EventSource), ("a.xml", XCalSource(input: spec("a.xml"))),
                               ("a.jcal", JCalSource(input: spec("a.jcal")))] {
            let events = try TestSupport.read(source)
            XCTAssertEqual(events.map(\.uid), ["a@example.com"], name)
            XCTAssertEqual(events.first?.start.iso8601, "2026-11-23T09:00:00+01:00", name)
        }
        // The same run time gives the same bytes.
        try run(##"[{"type": "ics", "path": "a.ics", "refresh_interval": "1h", "color": "#4682b4"}]"##)
        XCTAssertEqual(try text("a.ics"), ics)
    }

    private func spec(_ name: String) -> InputSpec {
        let path = directory.appendingPathComponent(name).path
        return InputSpec(location: .path(path, written: name))
    }

    func testMetadataOptionsAreChecked() throws {
        XCTAssertThrowsError(try run(#"[{"type": "ics", "path": "a.ics", "refresh_interval": "hourly", "color": "blurple"}]"#)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("p.json: sinks[0].refresh_interval: invalid duration \"hourly\" (expected an ISO 8601 duration such as \"PT1H\", or a number with s, m, h, d or w, such as \"30m\")"), text)
            XCTAssertTrue(text.contains("p.json: sinks[0].color: unknown colour \"blurple\" (expected a CSS3 colour name such as \"steelblue\", or \"#rrggbb\")"), text)
        }
        // An empty name writes none; a colour that is not a keyword is written as the nearest one.
        try run(##"[{"type": "ics", "path": "b.ics", "calendar_name": "", "color": "#4682b5"}]"##)
        let ics = try text("b.ics")
        XCTAssertFalse(ics.contains("NAME"), ics)
        XCTAssertTrue(ics.contains("\r\nCOLOR:steelblue\r\nX-APPLE-CALENDAR-COLOR:#4682b5\r\n"), ics)
        XCTAssertEqual(CSSColorNames.name(for: "#FFF")?.name, "white")
        XCTAssertEqual(CSSColorNames.name(for: "#FFF")?.exact, true)
        XCTAssertEqual(CSSColorNames.name(for: "#fe0000")?.name, "red")
        XCTAssertEqual(CSSColorNames.name(for: "#fe0000")?.exact, false)
        XCTAssertEqual(CSSColorNames.name(for: " RebeccaPurple ")?.name, "rebeccapurple")
        XCTAssertNil(CSSColorNames.name(for: "#12345"))
    }

    /// Kept components with names no writer can write (`BEGIN:` with an empty name): left out with a warning;
    /// xCal has no `<>` element and reads back; property names from other formats are repaired alike.
    func testUnwritableNamesAreLeftOutAndOutputIsWellFormed() throws {
        var e = Event(uid: "n@example.com", start: .utc(1_790_000_000), title: "names")
        e.components = [RawComponent(name: "", properties: [RawProperty(name: "X-A", value: "1")]),
                        RawComponent(name: "valarm", properties: [RawProperty(name: "ACTION", value: "DISPLAY"), RawProperty(name: "x_note", value: "n")],
                                     components: [RawComponent(name: "-", properties: [])])]
        e.otherProperties = [RawProperty(name: "", value: "empty name"), RawProperty(name: "x note", value: "v")]
        for (format, sink) in [("ics", ICSSink(path: directory.appendingPathComponent("n.ics").path) as Sink),
                               ("xml", XCalSink(path: directory.appendingPathComponent("n.xml").path)),
                               ("jcal", JCalSink(path: directory.appendingPathComponent("n.jcal").path))] {
            let context = TestSupport.context()
            try sink.open(context: context)
            try sink.write(Batch(events: [e]), context: context)
            XCTAssertEqual(try sink.commit(context: context), 1)
            XCTAssertEqual(context.report.warnings.count, 1, format)
            XCTAssertTrue(context.report.warnings.first?.contains("left out 2 kept components with no letter or digit in their names (\"\", \"-\")") == true,
                          "\(context.report.warnings)")
            let out = try text("n." + format)
            XCTAssertFalse(out.contains("<>"), out)
            XCTAssertFalse(out.contains("BEGIN:\r\n"), out)
            XCTAssertFalse(out.contains("BEGIN:-\r\n"), out)
            let source: EventSource
            switch format {
            case "ics": source = ICSSource(input: spec("n.ics"))
            case "xml": source = XCalSource(input: spec("n.xml"))
            default: source = JCalSource(input: spec("n.jcal"))
            }
            let back = try TestSupport.read(source)
            XCTAssertEqual(back.first?.components.map(\.name), ["VALARM"], format)
            XCTAssertEqual(back.first?.otherProperties.map(\.name).filter { $0.hasPrefix("X-") }, ["X-", "X-NOTE"], format)
        }
        let xml = try text("n.xml")
        let reader = try XMLStreamReader(input: XMLBytesInput(xml), label: "n.xml")
        var elements = 0
        while try reader.nextElement() { elements += 1 }
        XCTAssertGreaterThan(elements, 10)
    }

    /// Issue 30: an event's COLOR is a CSS3 colour name (RFC 7986), the exact colour goes beside it in
    /// X-CALPIPE-COLOR, and the readers take it from there, so a round trip keeps "#00897B".
    func testEventColourIsACSSNameAndTheExactColourSurvivesARoundTrip() throws {
        let colours = ["hex@x": "#00897B", "name@x": "SteelBlue", "short@x": "#FFF", "odd@x": "rgb(0, 137, 123)"]
        let feed = "[" + colours.keys.sorted().map { #"{"uid": "\#($0)", "title": "T", "start": "2026-11-23T09:00:00Z", "duration": "PT1H", "color": "\#(colours[$0]!)"}"# }
            .joined(separator: ",") + "]"
        try run(#"[{"type": "ics", "path": "a.ics"}, {"type": "xcal", "path": "a.xml"}, {"type": "jcal", "path": "a.jcal"}]"#, feed: feed)
        let ics = try text("a.ics")
        func event(_ uid: String, in text: String) -> String {
            let start = text.range(of: "UID:" + uid)!.upperBound
            return String(text[start..<text.range(of: "END:VEVENT", range: start..<text.endIndex)!.lowerBound])
        }
        XCTAssertTrue(event("hex@x", in: ics).contains("\r\nCOLOR:darkcyan\r\nX-CALPIPE-COLOR:#00897B\r\n"), ics)
        XCTAssertTrue(event("name@x", in: ics).contains("\r\nCOLOR:SteelBlue\r\n"), ics)
        XCTAssertFalse(event("name@x", in: ics).contains("X-CALPIPE-COLOR"), ics)
        XCTAssertTrue(event("short@x", in: ics).contains("\r\nCOLOR:white\r\nX-CALPIPE-COLOR:#FFF\r\n"), ics)
        XCTAssertTrue(event("odd@x", in: ics).contains("\r\nX-CALPIPE-COLOR:rgb(0\\, 137\\, 123)\r\n"), ics)
        XCTAssertFalse(event("odd@x", in: ics).contains("\nCOLOR:"), ics)
        let xml = try text("a.xml")
        XCTAssertTrue(xml.contains("<color><text>darkcyan</text></color>"), xml)
        XCTAssertTrue(xml.contains("<x-calpipe-color><text>#00897B</text></x-calpipe-color>"), xml)
        let jcal = try text("a.jcal")
        XCTAssertTrue(jcal.contains(#"["color", {}, "text", "darkcyan"]"#), jcal)
        XCTAssertTrue(jcal.contains(##"["x-calpipe-color", {}, "text", "#00897B"]"##), jcal)

        // Read back by the three readers: the exact colours, and X-CALPIPE-COLOR not kept as an unknown property.
        for (name, source) in [("a.ics", ICSSource(input: spec("a.ics")) as EventSource), ("a.xml", XCalSource(input: spec("a.xml"))),
                               ("a.jcal", JCalSource(input: spec("a.jcal")))] {
            let events = try TestSupport.read(source)
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: events.map { ($0.uid, $0.color ?? "nil") }), colours, name)
            XCTAssertEqual(events.flatMap { $0.otherProperties.map(\.name) }.filter { $0.contains("COLOR") }, [], name)
        }
        // Written again from what was read: the same lines, once each.
        try Data(ics.utf8).write(to: directory.appendingPathComponent("in.ics"))
        let json = try JSONParser.parse(#"{"name": "team-agenda", "timezone": "UTC", "sources": [{"type": "ics", "path": "in.ics"}], "sinks": [{"type": "ics", "path": "b.ics"}]}"#)
        let pipeline = try loader(["SOURCE_DATE_EPOCH": "1795000000"]).load(json: json, file: "p.json", baseDirectory: directory)
        try Runner().run(pipeline, context: RunContext(environment: pipeline.environment, quiet: true))
        let again = try text("b.ics")
        for uid in colours.keys { XCTAssertEqual(event(uid, in: again), event(uid, in: ics), uid) }
        // A COLOR written by another program (a name, or a colour calpipe did not write) is read as it is.
        try Data("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:n@x\r\nDTSTART:20261123T090000Z\r\nCOLOR:mediumseagreen\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
            .write(to: directory.appendingPathComponent("other.ics"))
        XCTAssertEqual(try TestSupport.read(ICSSource(input: spec("other.ics"))).map(\.color), ["mediumseagreen"])
    }

    /// The nearest CSS3 name is the perceptually nearest (CIELAB), never a Level 4 name; names stay as they are.
    func testNearestCSSColourName() throws {
        XCTAssertEqual(CSSColorNames.table.count, 148)
        XCTAssertEqual(Set(CSSColorNames.table.map(\.name)).subtracting(CSSColorNames.level4Only).count, 147)
        func nearest(_ text: String) -> String? { CSSColorNames.name(for: text).map { "\($0.name) \($0.exact)" } }
        XCTAssertEqual(nearest("#00897B"), "darkcyan false")
        // RGB distance would say darkcyan for this blue; CIELAB sees it nearer steelblue.
        XCTAssertEqual(nearest("#0082c9"), "steelblue false")
        XCTAssertEqual(nearest("#008080"), "teal true")
        XCTAssertEqual(nearest("#0ff"), "aqua true")
        // rebeccapurple's own colour, as a hex value: the nearest CSS3 name, not the Level 4 one.
        XCTAssertEqual(nearest("#663399"), "indigo false")
        XCTAssertEqual(nearest(" RebeccaPurple "), "rebeccapurple true")
        XCTAssertNil(nearest("#00897"))
        XCTAssertNil(nearest("#gg0000"))
        XCTAssertNil(nearest("rgb(0, 137, 123)"))
    }
}
