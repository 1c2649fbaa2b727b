import Exporters
import Foundation
import Pipeline
import XCTest
@testable import Importers

/// ics -> xcal -> ics and ics -> jcal -> ics keep every event of every iCalendar fixture: the events read
/// back from the xCal/jCal export, and from the iCalendar export of those, equal the events of an
/// ics -> ics round trip field by field.
final class RoundTripTests: XCTestCase {
    /// The iCalendar importer's corpus (Tests/Fixtures/ics/corpus) and the RFC examples of this area.
    private func fixtures() throws -> [String] {
        var paths: [String] = []
        let corpus = TestSupport.fixture("ics/corpus")
        if let names = try? FileManager.default.contentsOfDirectory(atPath: corpus) {
            paths += names.filter { $0.hasSuffix(".ics") }.sorted().map { corpus + "/" + $0 }
        }
        for name in ["xml/rfc6321-example1.ics", "xml/rfc6321-example2.ics", "jcal/rfc7265-example2.ics"] {
            paths.append(TestSupport.fixture(name))
        }
        return paths
    }

    private func read(_ source: EventSource) throws -> [Event] {
        try TestSupport.read(source).map(\.withoutOrigin)
    }

    private func write(_ sink: Sink, _ events: [Event]) throws {
        let context = TestSupport.context()
        try sink.open(context: context)
        try sink.write(Batch(events: events), context: context)
        _ = try sink.commit(context: context)
    }

    private func spec(_ path: String) -> InputSpec { InputSpec(location: .path(path, written: path)) }

    func testEveryFixtureSurvivesXCalAndJCal() throws {
        let directory = NSTemporaryDirectory() + "calpipe-roundtrip-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var checked = 0
        for path in try fixtures() {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let first = try read(ICSSource(input: spec(path)))
            guard !first.isEmpty else { continue }
            // What the iCalendar export keeps (it writes DTSTAMP first and VTIMEZONEs for the years used):
            // the xCal and jCal paths must keep exactly that.
            let icsCopy = directory + "/" + name
            try write(ICSSink(path: icsCopy), first)
            let original = try read(ICSSource(input: spec(icsCopy))).map(\.withTypedValues)
            XCTAssertEqual(original.count, first.count, name)
            for form in ["xcal", "jcal"] {
                let out = directory + "/" + name + "." + form
                let back = directory + "/" + name + "." + form + ".ics"
                let viaForm: [Event]
                if form == "xcal" {
                    try write(XCalSink(path: out), original)
                    viaForm = try read(XCalSource(input: spec(out))).map(\.withTypedValues)
                } else {
                    try write(JCalSink(path: out), original)
                    viaForm = try read(JCalSource(input: spec(out))).map(\.withTypedValues)
                }
                XCTAssertEqual(TestSupport.differences(viaForm, original), [], "\(name) via \(form)")
                try write(ICSSink(path: back), viaForm)
                XCTAssertEqual(TestSupport.differences(try read(ICSSource(input: spec(back))).map(\.withTypedValues), original), [],
                               "\(name) via \(form) and back to iCalendar")
            }
            checked += original.count
        }
        XCTAssertGreaterThanOrEqual(checked, 5)
    }
}
