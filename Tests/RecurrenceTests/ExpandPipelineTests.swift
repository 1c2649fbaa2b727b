import Foundation
import Importers
import Pipeline
import XCTest

/// The expand stage end to end: two iCalendar files of one source (overrides first, then the series) read by
/// the ICS source, expanded by the runner, compared with python `recurring-ical-events` on the same files
/// (Tests/Fixtures/recurrence/series-expected.txt, made by scripts/recurrence-series-oracle.py).
final class ExpandPipelineTests: XCTestCase {
    // @unchecked Sendable: a test double whose state is used as the plugin protocol orders the calls (one run).
    final class Capture: Sink, @unchecked Sendable {
        var occurrences: [Occurrence] = []
        var needs: BatchContent { .occurrences }
        var label: String { "capture" }
        func open(context: RunContext) throws {}
        func write(_ batch: Batch, context: RunContext) throws { occurrences.append(contentsOf: batch.occurrences) }
        func commit(context: RunContext) throws -> Int { occurrences.count }
        func abort(context: RunContext) {}
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/recurrence")

    func testTwoFilesOfOneSourceMatchRecurringIcalEvents() throws {
        let berlin = Zone.system(identifier: "Europe/Berlin")!
        let environment = PipelineEnvironment(
            pipelineFile: "test.json", baseDirectory: Self.fixtures, name: "series", zone: berlin,
            window: Window(from: CivilDate(year: 2026, month: 10, day: 15), to: CivilDate(year: 2026, month: 11, day: 10)),
            environment: [:], zones: ZoneDatabase(), today: CivilDate(year: 2026, month: 10, day: 1))
        let context = RunContext(environment: environment, quiet: true)
        let glob = Self.fixtures.appendingPathComponent("series").path + "/*.ics"
        let capture = Capture()
        let pipeline = PipelineDefinition(environment: environment, sources: [ICSSource(input: InputSpec(location: .path(glob, written: glob)))],
                                          stages: [ExpandStage()], sinks: [capture])
        try Runner().run(pipeline, context: context)
        XCTAssertEqual(context.report.rejections, [])
        XCTAssertEqual(context.report.warnings, [])

        // Single events pass on at once and series at the end of the input, so the sink sees them in that
        // order; the peer's list is sorted by start instant and UID, the order each batch is sorted in.
        let ours = SeriesExpander.sorted(capture.occurrences, zone: berlin).map { o in
            [o.event.uid, o.start.iso8601, o.end.iso8601, o.event.title ?? "", o.event.location ?? ""].joined(separator: " | ")
        }
        var expected = try String(contentsOf: Self.fixtures.appendingPathComponent("series-expected.txt"), encoding: .utf8)
            .split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }
        // One deliberate difference: DURATION:PT1H is an exact hour (RFC 5545 3.3.6), so the night shift that
        // starts at 01:30 EDT on the fall-back night ends at 01:30 EST (06:30 UTC); recurring-ical-events adds
        // the hour to the wall clock and ends it at 02:30 EST, two real hours later. A TZID time cannot name
        // the second 01:30 (it always means the first), so that end is written in UTC.
        let peer = "night@example.com | 2026-11-01T01:30:00-04:00 | 2026-11-01T02:30:00-05:00 | Night shift |"
        guard let i = expected.firstIndex(of: peer) else { return XCTFail("the fixture no longer has the fall-back night shift") }
        expected[i] = "night@example.com | 2026-11-01T01:30:00-04:00 | 2026-11-01T06:30:00Z | Night shift |"
        XCTAssertEqual(ours.map { $0.trimmingCharacters(in: .whitespaces) }, expected)
        XCTAssertEqual(expected.count, 23)
    }
}
