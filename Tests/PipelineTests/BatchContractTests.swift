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

    // MARK: Batch operations (`Batch+Operations.swift`)

    /// A small deterministic generator, so a failing round can be run again.
    private struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The fixed events and `count` more: timed, all-day, several days long, weekly series.
    private func shapedEvents(_ count: Int, _ rng: inout SplitMix) throws -> [Event] {
        let berlin = T.zone("Europe/Berlin")
        var out = try events()
        for k in 0..<count {
            let day = Int.random(in: 1...27, using: &rng), hour = Int.random(in: 0...22, using: &rng)
            var e: Event
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                e = Event(uid: "all\(k)", start: .date(T.date(2026, 11, day)), endSpec: .end(.date(T.date(2026, 11, day + Int.random(in: 1...3, using: &rng)))),
                          title: "All \(k)")
            case 1:
                e = Event(uid: "long\(k)", start: .zoned(T.local(2026, 11, day, hour), berlin),
                          endSpec: .end(.zoned(T.local(2026, 11, day + Int.random(in: 1...3, using: &rng), 1), berlin)), title: "Long \(k)")
            case 2:
                e = Event(uid: "series\(k)", start: .zoned(T.local(2026, 11, day, hour), berlin), endSpec: .end(.zoned(T.local(2026, 11, day, hour + 1), berlin)),
                          title: "Series \(k)")
                e.recurrence.rules = [try RecurrenceRule(parsing: "FREQ=DAILY;INTERVAL=\(Int.random(in: 2...9, using: &rng));COUNT=\(Int.random(in: 2...6, using: &rng))")]
            default:
                e = Event(uid: "one\(k)", start: .zoned(T.local(2026, 11, day, hour), berlin), endSpec: .end(.zoned(T.local(2026, 11, day, hour + 1), berlin)),
                          title: "One \(k)")
            }
            out.append(e)
        }
        return out.shuffled(using: &rng)
    }

    /// A split batch of `count` shaped events, expanded or not, with some entries unlinked (as `forecast` hands them on).
    private func shapedBatch(_ count: Int, expanded: Bool, _ rng: inout SplitMix, context: RunContext) throws -> Batch {
        var batch = Batch(events: try shapedEvents(count, &rng))
        if expanded {
            let expand = ExpandStage()
            batch = try expand.process(batch, context: context)
            batch.occurrences += try expand.finish(context: context).occurrences
        }
        batch = try SplitStage().process(batch, context: context)
        for i in batch.days.indices where Int.random(in: 0..<10, using: &rng) == 0 { batch.days[i].occurrenceIndex = nil }
        return batch
    }

    /// After random keeps and drops, every entry still linked points at the occurrence it pointed at before, every
    /// entry whose occurrence went is gone with it, and nothing else changed.
    func testOperationsKeepEveryLinkThroughRandomKeepsAndDrops() throws {
        let context = T.context(window: Window(from: T.date(2026, 11, 1), to: T.date(2026, 12, 31)))
        var rng = SplitMix(state: 24)
        for round in 0..<60 {
            let expanded = round % 2 == 0
            var batch = try shapedBatch(Int.random(in: 0...24, using: &rng), expanded: expanded, &rng, context: context)
            XCTAssertEqual(assertLinked(batch), batch.days.filter { $0.occurrenceIndex != nil }.count)
            for step in 0..<4 {
                let before = batch
                let linkedBefore = Set(before.days.indices.filter { before.days[$0].occurrenceIndex != nil }.map { before.days[$0] })
                let uids = Set(before.events.map(\.uid).filter { _ in Bool.random(using: &rng) })
                let salt = Int.random(in: 0..<3, using: &rng)
                let expected: [DayEntry]
                switch Int.random(in: 0..<4, using: &rng) {
                case 0:
                    batch.keepEvents { uids.contains($0.uid) }
                    expected = before.days.filter { uids.contains($0.event.uid) }
                    XCTAssertEqual(batch.events, before.events.filter { uids.contains($0.uid) })
                case 1:
                    let goneSet = Set(before.effectiveOccurrences.filter { _ in Int.random(in: 0..<3, using: &rng) == salt })
                    let gone: (Occurrence) -> Bool = { goneSet.contains($0) }
                    batch.removeOccurrences(where: gone)
                    expected = before.days.filter { !gone($0.occurrence) }
                    XCTAssertEqual(batch.effectiveOccurrences, before.effectiveOccurrences.filter { !gone($0) })
                case 2:
                    batch.removeDays { $0.part == 1 + salt }
                    expected = before.days.filter { $0.part != 1 + salt }
                    XCTAssertEqual(batch.effectiveOccurrences, before.effectiveOccurrences)
                default:
                    let extra = Array(try shapedEvents(2, &rng).prefix(Int.random(in: 0...6, using: &rng)))
                    batch.insertEvents(extra, at: Int.random(in: 0...before.events.count, using: &rng))
                    expected = before.days
                    XCTAssertEqual(batch.events.count, before.events.count + extra.count)
                }
                let where_ = "round \(round) step \(step)"
                XCTAssertEqual(batch.days, expected, where_)
                XCTAssertEqual(batch.content, before.content, where_)
                // The same entries are linked as before (an entry never loses its link while its occurrence stays), each to its own occurrence.
                XCTAssertEqual(Set(batch.days.filter { $0.occurrenceIndex != nil }), linkedBefore.intersection(expected), where_)
                XCTAssertEqual(assertLinked(batch), batch.days.filter { $0.occurrenceIndex != nil }.count, where_)
            }
        }
    }

    func testReplaceEventDropsWhatWasMadeFromTheOldOne() throws {
        let context = T.context(window: Window(from: T.date(2026, 11, 1), to: T.date(2026, 12, 1)))
        let expand = ExpandStage()
        var expanded = try expand.process(Batch(events: try events()), context: context)
        expanded.occurrences += try expand.finish(context: context).occurrences
        var split = try SplitStage().process(expanded, context: context)
        let weekly = split.events.firstIndex { $0.uid == "weekly" }!
        var renamed = split.events[weekly]
        renamed.title = "Standup (moved)"
        split.replaceEvent(at: weekly, with: renamed)
        XCTAssertEqual(split.events[weekly].title, "Standup (moved)")
        XCTAssertFalse(split.occurrences.contains { $0.event.uid == "weekly" })
        XCTAssertFalse(split.days.contains { $0.event.uid == "weekly" })
        XCTAssertEqual(split.days.count, 6)
        XCTAssertEqual(assertLinked(split), 6)

        var unexpanded = try SplitStage().process(Batch(events: try events()), context: context)
        var trip = unexpanded.events[1]
        trip.title = "Trip (moved)"
        unexpanded.replaceEvent(at: 1, with: trip)
        XCTAssertEqual(unexpanded.days.map { $0.occurrenceIndex! }, [0, 2, 2, 3])
        XCTAssertEqual(assertLinked(unexpanded), 4)
    }
}
