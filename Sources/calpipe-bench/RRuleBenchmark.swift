import ArgumentParser
import Pipeline

/// `calpipe-bench rrule`: occurrences per second of the RRULE engine for three typical rules.
///
/// Each case expands a COUNT-bounded rule from its DTSTART, in wall-clock time, the way python-dateutil's
/// `list(rrulestr(...))` does with a naive DTSTART, so `scripts/bench-rrule` can time dateutil on exactly the
/// same expansions (`--list` prints them) and print the ratios. The `series` figure is the whole path the
/// expand stage takes for a zoned event (Europe/Berlin): rule, zone conversion and `Occurrence` values.
struct RRuleBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rrule",
        abstract: "Occurrences per second for a daily, a weekly-BYDAY and a monthly-BYSETPOS rule."
    )

    struct Case {
        var name: String
        var start: CivilDateTime
        var rule: String
    }

    static let cases = [
        Case(name: "daily", start: CivilDateTime(year: 2000, month: 1, day: 3, hour: 9), rule: "FREQ=DAILY"),
        Case(name: "weekly-byday", start: CivilDateTime(year: 2000, month: 1, day: 3, hour: 9), rule: "FREQ=WEEKLY;BYDAY=MO,WE,FR"),
        Case(name: "monthly-bysetpos", start: CivilDateTime(year: 2000, month: 1, day: 28, hour: 9), rule: "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2"),
    ]

    @Option(help: "Occurrences per expansion (the rule's COUNT).")
    var count = 50_000

    @Option(help: "Least seconds to measure each figure.")
    var seconds = 1.0

    @Flag(help: "Print the cases as tab-separated name, DTSTART, RRULE (with COUNT) and stop.")
    var list = false

    @Flag(help: "Print tab-separated figures: name, engine occurrences/s, series occurrences/s.")
    var tsv = false

    func run() throws {
        if list {
            for c in Self.cases { print([c.name, c.start.basicFormat, c.rule + ";COUNT=\(count)"].joined(separator: "\t")) }
            return
        }
        let stopwatch = Stopwatch(minimumSeconds: seconds)
        let berlin = Zone.system(identifier: "Europe/Berlin")!
        if !tsv { print("rule                engine occ/s    series occ/s   (COUNT=\(count) per expansion)") }
        for c in Self.cases {
            let rule = try RecurrenceRule(parsing: c.rule + ";COUNT=\(count)")
            let end = CivilDateTime(year: 9999, month: 1, day: 1)
            var checksum: Int64 = 0
            let engine = stopwatch.rate {
                var n = 0
                rule.forEachOccurrence(start: c.start, from: c.start, to: end, limit: Int.max) {
                    checksum &+= $0.secondsSinceEpoch
                    n += 1
                }
                precondition(n == count, "\(c.name) made \(n) occurrences, expected \(count)")
                return n
            }
            var event = Event(uid: c.name, start: .zoned(c.start, berlin), endSpec: .duration(CalDuration(seconds: 3600)), title: c.name)
            event.recurrence.rules = [rule]
            let expander = SeriesExpander(zone: berlin, span: .init(from: nil, to: Int64(253_370_764_800)), maxOccurrences: Int.max - 1)
            let series = stopwatch.rate {
                let result = expander.expand(event)
                checksum &+= Int64(result.occurrences.count)
                return result.occurrences.count
            }
            if checksum == 42 { print("") }  // keeps the work observable
            if tsv {
                print([c.name, String(Int(engine)), String(Int(series))].joined(separator: "\t"))
            } else {
                print(c.name.rightPadded(18) + String(Int(engine)).leftPadded(14) + String(Int(series)).leftPadded(16))
            }
        }
    }
}

extension String {
    func rightPadded(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
