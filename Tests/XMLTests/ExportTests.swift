import CalXML
import Exporters
import Foundation
import Pipeline
import XCTest
@testable import Importers

final class ExportTests: XCTestCase {
    private func export(_ sink: Sink, _ events: [Event]) throws {
        let context = TestSupport.context()
        try sink.open(context: context)
        try sink.write(Batch(events: events), context: context)
        _ = try sink.commit(context: context)
    }

    private func rfcExample2() throws -> [Event] {
        try TestSupport.read(XCalSource(input: InputSpec(location: .path(TestSupport.fixture("xml/rfc6321-example2.xml"), written: "x"))))
    }

    /// The xCal and jCal of RFC 6321 example 2, as reviewed and committed (Tests/Fixtures/xml/rfc6321-example2.out.xml,
    /// Tests/Fixtures/jcal/rfc6321-example2.out.json); writing twice gives the same bytes.
    func testExportsAreTheCommittedBytes() throws {
        let events = try rfcExample2()
        let directory = NSTemporaryDirectory() + "calpipe-export-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (sink, out, expected) in [
            (XCalSink(path: directory + "/a.xml") as Sink, directory + "/a.xml", "xml/rfc6321-example2.out.xml"),
            (JCalSink(path: directory + "/a.json") as Sink, directory + "/a.json", "jcal/rfc6321-example2.out.json"),
        ] {
            try export(sink, events)
            let first = try Data(contentsOf: URL(fileURLWithPath: out))
            try export(sink, events)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), first, "\(expected): not deterministic")
            XCTAssertEqual(String(decoding: first, as: UTF8.self), try String(contentsOfFile: TestSupport.fixture(expected), encoding: .utf8), expected)
        }
    }

    /// Every element of the xCal export is in the xCal namespace and the document reads back through the
    /// hardened reader; the jCal export is valid JSON with the RFC 7265 shape.
    func testExportsAreWellFormed() throws {
        let xml = try String(contentsOfFile: TestSupport.fixture("xml/rfc6321-example2.out.xml"), encoding: .utf8)
        let reader = try XMLStreamReader(input: XMLBytesInput(xml), label: "out.xml")
        var elements = 0
        while try reader.nextElement() {
            XCTAssertEqual(reader.namespaceURI, "urn:ietf:params:xml:ns:icalendar-2.0", reader.localName)
            elements += 1
        }
        XCTAssertGreaterThan(elements, 40)
        let json = try JSONParser.parse(String(contentsOfFile: TestSupport.fixture("jcal/rfc6321-example2.out.json"), encoding: .utf8))
        guard case .array(let top) = json, top.count == 3, top[0] == .string("vcalendar"), case .array(let components) = top[2] else {
            return XCTFail("not a jCal calendar")
        }
        XCTAssertEqual(components.compactMap { $0.arrayValue?.first?.stringValue }, ["vtimezone", "vevent", "vevent"])
    }

    /// `expand: true`: one VEVENT per occurrence with its RECURRENCE-ID, read back as such.
    func testExpandedExport() throws {
        let window = Window(from: CivilDate(year: 2006, month: 1, day: 1), to: CivilDate(year: 2006, month: 2, day: 1))
        let environment = PipelineEnvironment(pipelineFile: "t.json", baseDirectory: TestSupport.fixtures, name: "t", zone: .utc, window: window,
                                              environment: [:], zones: TestSupport.zones, today: CivilDate(year: 2026, month: 11, day: 22))
        let context = RunContext(environment: environment, quiet: true)
        let stage = ExpandStage()
        let expanded = try stage.process(Batch(events: try rfcExample2()), context: context)
        let tail = try stage.finish(context: context)
        let directory = NSTemporaryDirectory() + "calpipe-expand-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (sink, path) in [(XCalSink(path: directory + "/e.xml", expand: true) as Sink, directory + "/e.xml"),
                             (JCalSink(path: directory + "/e.jcal", expand: true), directory + "/e.jcal")] {
            try sink.open(context: context)
            try sink.write(expanded, context: context)
            try sink.write(tail, context: context)
            let rows = try sink.commit(context: context)
            let source: EventSource = path.hasSuffix(".xml") ? XCalSource(input: InputSpec(location: .path(path, written: path)))
                                                             : JCalSource(input: InputSpec(location: .path(path, written: path)))
            let back = try TestSupport.read(source)
            XCTAssertEqual(rows, back.count, path)
            // RFC 6321 example 2: five daily instances (the third moved to 14:00) and the extra 15:00 one.
            XCTAssertEqual(back.map { $0.start.localTime.iso8601 }, [
                "2006-01-02T12:00:00", "2006-01-02T15:00:00", "2006-01-03T12:00:00", "2006-01-04T14:00:00", "2006-01-05T12:00:00", "2006-01-06T12:00:00",
            ], path)
            XCTAssertTrue(back.allSatisfy { $0.recurrenceID != nil && $0.recurrence.isEmpty }, path)
        }
    }

    /// A failed run leaves no file behind and keeps the previous one.
    func testAbortKeepsThePreviousFile() throws {
        let path = NSTemporaryDirectory() + "calpipe-abort-\(getpid()).xml"
        try "previous".write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let sink = XCalSink(path: path)
        let context = TestSupport.context()
        try sink.open(context: context)
        try sink.write(Batch(events: try rfcExample2()), context: context)
        sink.abort(context: context)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "previous")
    }
}
