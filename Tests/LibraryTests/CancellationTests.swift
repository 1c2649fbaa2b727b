import CalpipeKit
import Foundation
import XCTest

/// A job is cancelled by cancelling its task: a read that would go on for a minute stops at its next batch.
final class CancellationTests: XCTestCase {
    /// A feed that sends a batch of events every few milliseconds for up to a minute (a slow, endless server).
    final class EndlessSource: EventSource {
        static let descriptor = SourceDescriptor(type: "endless", kind: .source, summary: "a slow feed", options: Options.self,
                                                 make: { _, _ in EndlessSource() })

        /// The file the job names (unread: the feed is made up).
        struct Options: OptionConfig {
            var path = ""
            static let options = OptionSpec<Options> { Key("path", \.path, .string, "unread") }
        }

        func read(context: RunContext, emit: (Batch) throws -> Void) throws {
            let end = Date().addingTimeInterval(60)
            var n = 0
            while Date() < end {
                let events = (0..<100).map { i in
                    Event(uid: "e\(n)-\(i)", start: .date(CivilDate(year: 2026, month: 12, day: 1)), endSpec: nil, title: "event")
                }
                n += 1
                try emit(Batch(events: events))
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    func testCancellingTheTaskStopsALongRead() async throws {
        var settings = Calpipe.Settings(environment: ["TZ": "UTC"])
        settings.registry = Calpipe.registry(sources: [EndlessSource.descriptor])
        let started = Date()
        let read = Task { try await Calpipe.readEvents(fromFile: "feed", format: "endless", settings: settings) }
        try await Task.sleep(nanoseconds: 300_000_000)
        read.cancel()
        do {
            _ = try await read.value
            XCTFail("the read finished")
        } catch let error as CalpipeError {
            XCTAssertEqual(error.message, "interrupted by task cancellation: nothing was written")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
    }
}
