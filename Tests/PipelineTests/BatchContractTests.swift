import XCTest
@testable import Pipeline

/// The batch contract (`Batch`): what a batch carries, and each day entry's link to its occurrence, kept true by
/// the stages that make, drop or hold entries.
final class BatchContractTests: XCTestCase {
    typealias T = TestSupport

    /// A weekly series, a three-day timed event, an all-day event over two days and a one-hour meeting.
    private func events() throws -> [Event] {
        let berlin = T.zone("Europe/Berlin")
        var weekly = Event(uid: "weekly", start: .zoned(T.local(2026, 11, 2, 9), berlin), endSpec: .end(.zoned(T.local(2026, 11, 2, 10), berlin)),
                           title: "Standup")
        weekly.recurrence.rules = [try RecurrenceRule(parsing: "FREQ=WEEKLY;COUNT=4")]
        let trip = Event(uid: "trip", start: .zoned(T.local(2026, 11, 4, 18), berlin), endSpec: .end(.zoned(T.local(2026, 11, 6, 12), berlin)),
                         title: "Trip")
        let fair = Event(uid: "fair", start: .date(T.date(2026, 11, 10)), endSpec: .end(.date(T.date(2026, 11, 12))), title: "Fair")
        let meeting = Event(uid: "meeting", start: .zoned(T.local(2026, 11, 3, 14), berlin), endSpec: .end(.zoned(T.local(2026, 11, 3, 15), berlin)),
                            title: "Meeting")
        return [weekly, trip, fair, meeting]
    }

    /// Every linked entry points at its own occurrence in the batch; returns how many were linked.
    @discardableResult
    private func assertLinked(_ batch: Batch, file: StaticString = #filePath, line: UInt = #line) -> Int {
        let occurrences = batch.effectiveOccurrences
        var linked = 0
        for day in batch.days {
            guard let i = day.occurrenceIndex else { continue }
            XCTAssertTrue(occurrences.indices.contains(i), "link \(i) outside the batch", file: file, line: line)
            guard occurrences.indices.contains(i) else { continue }
            XCTAssertEqual(occurrences[i], day.occurrence, "\(day.event.uid) on \(day.day)", file: file, line: line)
            linked += 1
        }
        return linked
    }

    func testSplitLinksEveryDayToItsOccurrence() throws {
        let context = T.context(window: Window(from: T.date(2026, 11, 1), to: T.date(2026, 12, 1)))
        let expand = ExpandStage()
        let read = Batch(events: try events())
        XCTAssertEqual(read.content, .events)
        var expanded = try expand.process(read, context: context)
        let tail = try expand.finish(context: context)
        expanded.occurrences += tail.occurrences
        XCTAssertEqual(expanded.content, [.events, .occurrences])
        let split = try SplitStage().process(expanded, context: context)
        XCTAssertEqual(split.content, [.events, .occurrences, .days])
        // 4 standups + 3 trip days + 2 fair days + 1 meeting, every one linked.
        XCTAssertEqual(split.days.count, 10)
        XCTAssertEqual(assertLinked(split), 10)

        // Not expanded: the links point at the events' single occurrences.
        let unexpanded = try SplitStage().process(read, context: context)
        XCTAssertEqual(unexpanded.content, [.events, .days])
        XCTAssertEqual(assertLinked(unexpanded), unexpanded.days.count)
        XCTAssertEqual(unexpanded.days.map { $0.occurrenceIndex! }, [0, 1, 1, 1, 2, 2, 3])
    }

    func testFilterRelinksTheDaysItKeeps() throws {
        let context = T.context(window: Window(from: T.date(2026, 11, 1), to: T.date(2026, 12, 1)))
        let expand = ExpandStage()
        var expanded = try expand.process(Batch(events: try events()), context: context)
        expanded.occurrences += try expand.finish(context: context).occurrences
        let split = try SplitStage().process(expanded, context: context)
        for filter in [FilterStage(titleContains: "trip"), FilterStage(allDay: true), FilterStage(titleContains: "standup"), FilterStage(allDay: false)] {
            let kept = try filter.process(split, context: context)
            XCTAssertFalse(kept.days.isEmpty)
            XCTAssertEqual(assertLinked(kept), kept.days.count)
        }
        // Without expand, the days link to events, and a filter moves those.
        let unexpanded = try FilterStage(titleContains: "fair").process(try SplitStage().process(Batch(events: try events()), context: context),
                                                                         context: context)
        XCTAssertEqual(unexpanded.days.map { $0.occurrenceIndex }, [0, 0])
        XCTAssertEqual(assertLinked(unexpanded), 2)
    }

    /// The link says where an entry travels, not what it is: entries compare equal without it.
    func testTheLinkIsNotPartOfTheValue() throws {
        let context = T.context(window: Window(from: T.date(2026, 11, 1), to: T.date(2026, 12, 1)))
        let split = try SplitStage().process(Batch(events: try events()), context: context)
        var moved = split.days[1]
        moved.occurrenceIndex = nil
        XCTAssertEqual(moved, split.days[1])
        XCTAssertEqual(moved.hashValue, split.days[1].hashValue)
    }
}
