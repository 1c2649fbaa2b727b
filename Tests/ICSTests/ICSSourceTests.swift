import Foundation
import XCTest
import Importers
import Exporters
import Pipeline

/// The `ics` source as a pipeline runs it: globs, batches, the report's rejections, warnings and counters.
final class ICSSourceTests: XCTestCase {
    private func context(zone: Zone = .utc) -> RunContext {
        let env = PipelineEnvironment(pipelineFile: "p.json", baseDirectory: Fixtures.root, name: "t", zone: zone, window: nil,
                                      environment: [:], zones: testZones, today: CivilDate(year: 2026, month: 3, day: 1))
        return RunContext(environment: env, quiet: true)
    }

    func testGlobReadsEveryFileReportsRejectionsAndCountsSkippedComponents() throws {
        // On one thread and with worker threads: the same.
        for workers in [0, 2] {
            let source = ICSSource(input: InputSpec(location: .path(Fixtures.root.path + "/broken/0[1-4]*.ics", written: "broken/0[1-4]*.ics")),
                                   workers: workers, strict: true)
            let ctx = context()
            var batches: [Batch] = []
            try source.read(context: ctx) { batches.append($0) }
            XCTAssertEqual(batches.flatMap(\.events).map(\.uid), Array(repeating: "good@example.com", count: 4))
            XCTAssertEqual(ctx.report.rejections.map(\.description), [
                "broken/01-no-colon.ics:7: malformed line (no \":\" after the property name)",
                "broken/02-bad-date.ics:7: DTSTART: \"20260231T100000\" is not a valid date or date-time",
                "broken/03-begin-end-mismatch.ics:8: END:VTODO does not match BEGIN:VEVENT at line 4",
                "broken/04-no-dtstart.ics:4: VEVENT has no DTSTART",
            ], "workers \(workers)")
        }
    }

    func testRepairsAreCountedApartFromRejections() throws {
        let source = ICSSource(input: InputSpec(location: .path(Fixtures.root.path + "/broken/0[1-4]*.ics", written: "broken/0[1-4]*.ics")))
        let ctx = context()
        var batches: [Batch] = []
        try source.read(context: ctx) { batches.append($0) }
        XCTAssertEqual(batches.flatMap(\.events).map(\.uid), ["no-colon@example.com", "good@example.com", "good@example.com",
                                                              "mismatch@example.com", "good@example.com", "good@example.com"])
        XCTAssertEqual(ctx.report.rejections.map(\.description), [
            "broken/02-bad-date.ics:7: DTSTART: \"20260231T100000\" is not a valid date or date-time",
            "broken/04-no-dtstart.ics:4: VEVENT has no DTSTART",
        ])
        XCTAssertEqual(ctx.report.repairs.map(\.description), [
            "broken/01-no-colon.ics:7: UID \"no-colon@example.com\": malformed line (no \":\" after the property name): the line is dropped",
            "broken/03-begin-end-mismatch.ics:8: UID \"mismatch@example.com\": END:VTODO does not match BEGIN:VEVENT at line 4: ignored",
            "broken/03-begin-end-mismatch.ics:4: UID \"mismatch@example.com\": BEGIN:VEVENT at line 4 has no END:VEVENT: closed at line 9",
        ])
        // --strict (the run's) rejects as the source option does.
        let strictContext = RunContext(environment: ctx.environment, strict: true, quiet: true)
        try source.read(context: strictContext) { _ in }
        XCTAssertEqual(strictContext.report.rejections.count, 4)
        XCTAssertEqual(strictContext.report.repairs, [])
    }

    func testCountersAndFullBatches() throws {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:t\r\nEND:VTODO\r\n"
        for i in 0..<2500 { text += "BEGIN:VEVENT\r\nUID:e\(i)\r\nDTSTART:20260501T090000Z\r\nEND:VEVENT\r\n" }
        text += "END:VCALENDAR\r\n"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-ics-source-\(UUID().uuidString).ics").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        // With workers, the batches the pipeline let go of are freed by the workers that made them.
        for workers in [0, 1, 2] {
            let ctx = context()
            var sizes: [Int] = []
            var uids: [String] = []
            try ICSSource(input: InputSpec(location: .path(path, written: "big.ics")), workers: workers).read(context: ctx) {
                sizes.append($0.events.count)
                uids.append(contentsOf: $0.events.map(\.uid))
            }
            // 2,500 events in batches of 128: 19 full ones and the 68 left over.
            XCTAssertEqual(ICSSource.batchSize, 128)
            XCTAssertEqual(sizes, Array(repeating: 128, count: 19) + [68], "workers \(workers)")
            XCTAssertEqual(uids, (0..<2500).map { "e\($0)" }, "workers \(workers)")
            XCTAssertEqual(ctx.report.counter("skipped VTODO"), 1)
            XCTAssertEqual(ctx.report.rejections, [])
        }
    }

    func testNotICalendarIsOneErrorForTheFile() throws {
        for workers in [0, 2] {
            let source = ICSSource(input: InputSpec(location: .path(Fixtures.root.path + "/broken/05-html-error-page.ics", written: "feed.ics")),
                                   workers: workers)
            XCTAssertThrowsError(try source.read(context: context()) { _ in }) { error in
                XCTAssertEqual("\(error)", "feed.ics: not an iCalendar file (expected BEGIN:VCALENDAR, found \"<!DOCTYPE html>\")")
            }
        }
    }

    func testDescriptorsAreRegistered() {
        XCTAssertEqual(SourcePlugins.all.first { $0.type == "ics" }?.fileExtensions, ["ics", "ical", "ifb"])
        XCTAssertEqual(SourcePlugins.all.first { $0.type == "ics" }?.options.map(\.name), InputOptions.options.keys + ["workers", "strict"])
        XCTAssertTrue(SinkPlugins.all.contains { $0.type == "ics" })
    }
}
