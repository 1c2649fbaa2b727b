/// Turns one recurring event (a series master) and its RECURRENCE-ID overrides into the occurrences that
/// touch a span of time.
///
/// The recurrence set follows RFC 5545: DTSTART, every RRULE (unioned), every RDATE (DATE, DATE-TIME or
/// PERIOD, in any zone), minus every EXRULE and EXDATE. Instances are generated in the event's own wall clock
/// (its TZID zone; UTC for UTC times; dates and floating times in the pipeline zone) and converted through the
/// zone afterwards, so a 09:00 meeting stays at 09:00 across DST changes; a wall-clock time in a DST gap moves
/// forward by the gap, an ambiguous one takes the first of the two instants (RFC 5545 3.3.5).
///
/// Overrides replace the instance whose original start equals their RECURRENCE-ID (compared in the master's
/// zone); an override with RANGE=THISANDFUTURE also moves every later instance by its own time shift and gives
/// them its properties. An override whose instance the rule never produces still shows up, at its own time.
/// A cancelled instance (STATUS:CANCELLED on the override or the master) is left out unless
/// `includeCancelled`.
package struct SeriesExpander: Sendable {
    /// The span occurrences must touch, as UTC instants: [from, to); nil `from` means from DTSTART on.
    package struct Span: Hashable, Sendable {
        package var from: Int64?
        package var to: Int64

        package init(from: Int64?, to: Int64) {
            self.from = from
            self.to = to
        }

        /// The window rule: an occurrence [start, end) is in when start < to and end > from; a zero-length one
        /// when from <= start < to.
        package func contains(start: Int64, end: Int64) -> Bool {
            let lower = from ?? Int64.min
            if end <= start { return start >= lower && start < to }
            return start < to && end > lower
        }
    }

    package struct Result {
        /// Occurrences of the series touching the span, sorted by start, then by original start.
        package var occurrences: [Occurrence]
        /// True when the series had more than `maxOccurrences` instances in the span (only the first were kept).
        package var truncated: Bool
        /// True when a rule needed more than `RecurrenceRule.workBudget` steps and was cut short (a rule that
        /// matches almost never, such as FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=29 over centuries).
        package var workBudgetExhausted: Bool = false
        /// What the series' rules can never give, each said once (`ruleNotes`): the expand stage warns with them.
        package var notes: [String] = []
    }

    /// The pipeline's zone: dates and floating times are read in it.
    package var zone: Zone
    package var span: Span
    package var maxOccurrences: Int
    package var includeCancelled: Bool
    /// The run's shared budget of rule work (nil: each rule has `RecurrenceRule.workBudget`, nothing shared).
    package var allowance: RuleWorkAllowance? = nil

    package init(zone: Zone, span: Span, maxOccurrences: Int = 100_000, includeCancelled: Bool = false) {
        self.zone = zone
        self.span = span
        self.maxOccurrences = maxOccurrences
        self.includeCancelled = includeCancelled
    }

    /// This expander for one part of its span (an incremental run's gained days): the same zone, caps and
    /// shared rule allowance.
    func within(_ range: Range<Int64>) -> SeriesExpander {
        var part = self
        part.span = Span(from: range.lowerBound, to: range.upperBound)
        return part
    }

    /// The zone whose wall clock an event's times are generated in.
    func clockZone(of time: EventTime) -> Zone {
        switch time {
        case .zoned(_, let z): return z
        case .utc: return .utc
        case .date, .floating: return zone
        }
    }

    /// A time read on the series' wall clock (`clock`), whatever form it was written in.
    func wallClock(_ time: EventTime, clock: Zone, series: EventTime) -> CivilDateTime {
        switch time {
        case .date(let d):
            // A RECURRENCE-ID written as a DATE for a series of DATE-TIMEs (a type mismatch that feeds make and
            // libical accepts) names that day's instance: at the series' time of day, wherever it is in the file.
            if !series.isDate { return CivilDateTime(secondsSinceEpoch: Int64(d.daysSinceEpoch) * 86_400 + Int64(series.localTime.secondOfDay)) }
            return CivilDateTime(date: d)
        case .floating(let l): return l
        case .zoned(let l, let z):
            if z == clock { return l }
            return clock.local(fromUTC: z.utc(fromLocal: l))
        case .utc(let s):
            if case .floating = series { return zone.local(fromUTC: s) }
            if case .date = series { return zone.local(fromUTC: s) }
            return clock.local(fromUTC: s)
        }
    }

    /// Expands `master` with its `overrides` (events with the same UID and a RECURRENCE-ID).
    package func expand(_ master: Event, overrides: [Event] = []) -> Result {
        let batch = OccurrenceBatch()
        let (truncated, exhausted, notes) = expand(master, overrides: overrides, into: batch)
        // Usually already in order (strictly increasing starts); otherwise sort with the full key.
        let inOrder = batch.startsIncrease(from: 0)
        let made = batch.takeInArrivalOrder()
        let occurrences = inOrder ? made : Self.sorted(made, zone: zone)
        return Result(occurrences: occurrences, truncated: truncated, workBudgetExhausted: exhausted, notes: notes)
    }

    /// Wall-clock instances one step of `expand(_:overrides:into:chunk:flush:)` asks each rule for: a series
    /// is expanded in steps of about this many instances, so memory holds one step, however long the series.
    static let stepInstances = 4096

    /// Expands `master` with its `overrides` and appends the occurrences that touch the span to `batch`, with
    /// their sort keys, in the order they are made (not sorted). Returns whether `maxOccurrences` cut the
    /// series short and whether a rule ran out of its work budget.
    ///
    /// With `chunk` and `flush`: the series is made in steps of time, each holding about `stepInstances` instances of its busiest rule;
    /// after a step, when `batch` holds `chunk` occurrences or more, `flush` is called (it takes them out of
    /// the batch, or throws to stop). Overrides are added after the last step.
    func expand(_ master: Event, overrides: [Event], into batch: OccurrenceBatch) -> (truncated: Bool, exhausted: Bool, notes: [String]) {
        expand(master, overrides: overrides, into: batch, chunk: Int.max, flush: { _ in }, everyStep: {})
    }

    /// `everyStep` runs after each step, whatever it made (the expand stage checks for a signal there, so a
    /// series that makes little in the span, or makes it slowly, still stops within a step).
    func expand(_ master: Event, overrides: [Event], into batch: OccurrenceBatch, chunk: Int,
                flush: (OccurrenceBatch) throws -> Void, everyStep: () throws -> Void) rethrows -> (truncated: Bool, exhausted: Bool, notes: [String]) {
        let clock = clockZone(of: master.start)
        let startLocal = master.start.localTime
        let duration = master.occurrenceDuration(in: zone)
        let isDateSeries = master.start.isDate

        // Overrides by the wall-clock time of the instance they replace.
        var exact: [Int64: Event] = [:]
        var futures: [(from: Int64, shift: Int64, event: Event, duration: CalDuration)] = []
        for o in overrides {
            guard let rid = o.recurrenceID else { continue }
            let key = instanceKey(wallClock(rid.time, clock: clock, series: master.start), isDate: isDateSeries)
            // Two overrides of one instance: the later revision (SEQUENCE, then DTSTAMP), else the one read last.
            if let held = exact[key], o.revisionOrder(comparedTo: held) < 0 { continue }
            exact[key] = o
            if rid.thisAndFuture {
                let newStart = wallClock(o.start, clock: clock, series: master.start).secondsSinceEpoch
                futures.append((key, newStart &- key, o, o.occurrenceDuration(in: zone)))
            }
        }
        futures.sort { $0.from < $1.from }
        let maxShift = futures.map { $0.shift.magnitude }.max().map { Int64(clamping: $0) } ?? 0

        // The wall-clock range to generate: the span read on the series' clock, widened by the longest
        // duration, the largest THISANDFUTURE shift and a day for zone offsets.
        let reach = Self.seconds(of: duration) &+ maxShift &+ 2 * 86_400
        var periodReach: Int64 = 0
        for date in master.recurrence.dates {
            if case .period(let s, let e) = date { periodReach = max(periodReach, e.utcSeconds(in: zone) &- s.utcSeconds(in: zone)) }
            if case .periodWithDuration(_, let d) = date { periodReach = max(periodReach, Self.seconds(of: d)) }
        }
        let fromLocal: Int64 = span.from.map { clock.local(fromUTC: $0).secondsSinceEpoch &- reach &- periodReach } ?? startLocal.secondsSinceEpoch
        let toLocal: Int64 = clock.local(fromUTC: span.to).secondsSinceEpoch &+ maxShift &+ 2 * 86_400
        let from = CivilDateTime(secondsSinceEpoch: max(fromLocal, startLocal.secondsSinceEpoch))
        let to = CivilDateTime(secondsSinceEpoch: max(toLocal, startLocal.secondsSinceEpoch + 1))

        // RDATEs (and DTSTART of a series without RRULE), ascending, with any PERIOD end: as many as the input has.
        var dates: [Int64] = []
        var periodEnds: [Int64: EventTime] = [:]
        if master.recurrence.rules.isEmpty {
            if startLocal >= from && startLocal < to { dates.append(startLocal.secondsSinceEpoch) }
        }
        // An RDATE may lie before DTSTART (RFC 5545 does not forbid it; python icalendar and
        // recurring-ical-events keep it): only the span bounds it, not DTSTART.
        let datesFrom = CivilDateTime(secondsSinceEpoch: span.from == nil ? Int64.min / 4 : fromLocal)
        for date in master.recurrence.dates {
            let local = wallClock(date.start, clock: clock, series: master.start)
            guard local >= datesFrom && local < to else { continue }
            dates.append(local.secondsSinceEpoch)
            switch date {
            case .time: break
            case .period(_, let end): periodEnds[local.secondsSinceEpoch] = end
            case .periodWithDuration(let s, let d): periodEnds[local.secondsSinceEpoch] = Self.end(of: s, after: d)
            }
        }
        if dates.count > 1 { dates.sort() }

        // The rules' engines, run once per step. On an all-day series BYHOUR, BYMINUTE and BYSECOND are
        // ignored (a date has no time of day; libical and ical.js do the same).
        var engines: [RuleEngine] = master.recurrence.rules.map {
            RuleEngine(rule: isDateSeries ? Self.withoutTimeOfDay($0) : $0, start: startLocal.secondsSinceEpoch, zone: clock)
        }
        var exceptionEngines: [RuleEngine] = master.recurrence.exceptionRules.map {
            RuleEngine(rule: isDateSeries ? Self.withoutTimeOfDay($0) : $0, start: startLocal.secondsSinceEpoch, zone: clock)
        }
        /// Rules that ran out of their work budget: they give nothing after the step they stopped in.
        var stopped = [Bool](repeating: false, count: engines.count)
        let notes = Self.ruleNotes(master.recurrence.rules, engines)

        // EXDATEs (a DATE EXDATE on a timed series removes that whole day): as many as the input has.
        var excluded = Set<Int64>()
        var excludedDays = Set<Int>()
        for ex in master.recurrence.exceptionDates {
            if case .date(let d) = ex, !isDateSeries { excludedDays.insert(d.daysSinceEpoch); continue }
            excluded.insert(instanceKey(wallClock(ex, clock: clock, series: master.start), isDate: isDateSeries))
        }
        let hasExclusions = !excluded.isEmpty || !excludedDays.isEmpty

        func add(_ o: Occurrence) {
            let (s, e) = o.interval(in: zone)
            if span.contains(start: s, end: e) {
                batch.append(o, start: s, original: o.recurrenceID?.utcSeconds(in: zone) ?? s)
            }
        }
        var truncated = false
        var exhausted = false
        var kept = 0
        let masterCancelled = master.isCancelled
        // Every instance of the master shares one stored copy of it (this one's own times are never used).
        let masterTemplate = Occurrence(event: master, start: master.start, end: master.start)
        var futureIndex = -1
        // The common case, a zoned series whose duration has no days, converts each instance once.
        var fastZone: Zone? = nil
        if case .zoned(_, let z) = master.start, duration.days == 0 { fastZone = z }
        var cursor = ZoneCursor(fastZone ?? zone)

        // The step's instances, as wall-clock seconds (in the batch's scratch list).
        var starts: [Int64] = []
        swap(&starts, &batch.scratchStarts)
        defer { swap(&starts, &batch.scratchStarts) }
        // A step makes at most `chunk` instances per rule (when that is fewer than `stepInstances`): the batch
        // `flush` hands on then holds about `chunk` occurrences, not a whole step's. The expand stage weighs
        // `chunk` by the days each occurrence touches, so long instances (each a day entry per day) come in
        // small batches; a step of 4096 instances that each last twelve days made batches of 49,000 day
        // entries, three times what the stage meant, and the batches queued for the sinks held some 90 MB.
        let stepLimit = max(1, min(Self.stepInstances, chunk))
        var stepFrom = from.secondsSinceEpoch
        let end = to.secondsSinceEpoch
        var dateIndex = 0
        steps: while true {
            starts.removeAll(keepingCapacity: true)
            // The step ends where the first rule that had more to give stopped, so every rule's instances
            // before that are all here.
            var stepEnd = end
            var sources = 0
            for r in engines.indices where !stopped[r] {
                var made = 0
                var last = Int64.min
                if let allowance { engines[r].workBudget = allowance.grant() }
                let cut = engines[r].run(from: stepFrom, to: end, includeStart: true, limit: stepLimit) {
                    starts.append($0)
                    last = $0
                    made += 1
                }
                allowance?.spend(engines[r].lastWork)
                if made > 0 { sources += 1 }
                if cut {
                    if made < stepLimit { exhausted = true; stopped[r] = true }  // the work budget, not the step
                    if made > 0 { stepEnd = min(stepEnd, last + 1) }
                }
            }
            if sources > 1 || stepEnd < end {
                var n = 0
                for s in starts where s < stepEnd {
                    starts[n] = s
                    n += 1
                }
                starts.removeLast(starts.count - n)
            }
            let firstDate = dateIndex
            while dateIndex < dates.count && dates[dateIndex] < stepEnd {
                starts.append(dates[dateIndex])
                dateIndex += 1
            }
            // Ascending without duplicates (one rule alone already gives that).
            if sources > 1 || dateIndex > firstDate {
                var ascending = true
                for i in starts.indices.dropFirst() where starts[i - 1] >= starts[i] {
                    ascending = false
                    break
                }
                if !ascending {
                    starts.sort()
                    var n = 0
                    for i in starts.indices where n == 0 || starts[i] != starts[n - 1] {
                        starts[n] = starts[i]
                        n += 1
                    }
                    starts.removeLast(starts.count - n)
                }
            }
            // EXRULE instances of the step, matched against the ascending starts as they come (nothing stored).
            var hasExcludedStarts = false
            for r in exceptionEngines.indices where !starts.isEmpty {
                var j = 0
                _ = exceptionEngines[r].run(from: stepFrom, to: stepEnd, includeStart: false, limit: Int.max) { x in
                    while j < starts.count && starts[j] < x { j += 1 }
                    if j < starts.count && starts[j] == x {
                        starts[j] = Self.excludedMark
                        hasExcludedStarts = true
                        j += 1
                    }
                }
            }

            for s in starts {
                if hasExcludedStarts && s == Self.excludedMark { continue }
                if hasExclusions && (excluded.contains(s) || excludedDays.contains(Int(floorDiv(s, 86_400)))) { continue }
                if kept >= maxOccurrences { truncated = true; break steps }
                kept += 1
                if !exact.isEmpty && exact.index(forKey: s) != nil { continue }  // the override stands in for it, at its own time (below)
                while futureIndex + 1 < futures.count && futures[futureIndex + 1].from <= s { futureIndex += 1 }
                if futureIndex < 0 {
                    if !includeCancelled && masterCancelled { continue }
                    if let z = fastZone, periodEnds.isEmpty || periodEnds[s] == nil {
                        // As `z.utc(fromLocal:)`, `z.local(fromUTC:)` and `Self.time(atUTC:in:)`, from the stretch
                        // between transitions the previous instance was in.
                        let u = cursor.utc(fromLocal: CivilDateTime(secondsSinceEpoch: s))
                        let e = u + duration.seconds
                        guard span.contains(start: u, end: max(u, e)) else { continue }
                        let original = EventTime.zoned(CivilDateTime(secondsSinceEpoch: s), z)
                        let local = cursor.local(fromUTC: u)
                        let endLocal = cursor.local(fromUTC: e)
                        let end: EventTime = cursor.utc(fromLocal: endLocal) == e ? .zoned(endLocal, z) : .utc(e)
                        if local.secondsSinceEpoch == s {
                            batch.append(Occurrence(sharingEventOf: masterTemplate, start: original, end: end, recurrenceID: original),
                                         start: u, original: u)
                        } else {
                            // Moved out of a DST gap: its start names another wall-clock time.
                            batch.append(Occurrence(sharingEventOf: masterTemplate, start: .zoned(local, z), end: end, recurrenceID: original),
                                         start: cursor.utc(fromLocal: local), original: u)
                        }
                        continue
                    }
                    let original = master.start.withLocalTime(CivilDateTime(secondsSinceEpoch: s))
                    let startTime = normalized(original)
                    add(Occurrence(sharingEventOf: masterTemplate, start: startTime, end: periodEnds[s] ?? Self.end(of: startTime, after: duration), recurrenceID: original))
                } else {
                    let f = futures[futureIndex]
                    if !includeCancelled && (masterCancelled || f.event.isCancelled) { continue }
                    let original = master.start.withLocalTime(CivilDateTime(secondsSinceEpoch: s))
                    let startTime = normalized(master.start.withLocalTime(CivilDateTime(secondsSinceEpoch: s + f.shift)))
                    add(Occurrence(event: f.event, start: startTime, end: Self.end(of: startTime, after: f.duration), recurrenceID: original))
                }
            }
            if stepEnd >= end { break }
            stepFrom = stepEnd
            if batch.count >= chunk { try flush(batch) }
            try everyStep()
        }
        // Overrides show up at their own time, whether or not the rule produced their instance.
        for o in overrides {
            guard let rid = o.recurrenceID else { continue }
            if !includeCancelled && o.isCancelled { continue }
            let key = instanceKey(wallClock(rid.time, clock: clock, series: master.start), isDate: isDateSeries)
            if exact[key] != o { continue }  // another override of the same instance won
            let original = master.start.withLocalTime(CivilDateTime(secondsSinceEpoch: key))
            add(Occurrence(event: o, start: o.start, end: o.end, recurrenceID: original))
        }
        return (truncated, exhausted, notes)
    }

    /// What each rule can never give, decided from the rule alone (`RuleEngine.neverMatches`,
    /// `untilBeforeStart`): such a rule costs nothing to expand, and the expand stage says why.
    static func ruleNotes(_ rules: [RecurrenceRule], _ engines: [RuleEngine]) -> [String] {
        var notes: [String] = []
        for (rule, engine) in zip(rules, engines) {
            if engine.untilBeforeStart {
                notes.append("RRULE \(rule.text): UNTIL is before DTSTART, so the rule gives no instance, not even DTSTART")
            } else if let why = engine.neverMatches {
                notes.append("RRULE \(rule.text) can never match after DTSTART (\(why)): it gives DTSTART alone")
            }
        }
        return notes
    }

    /// `start` plus `duration` as RFC 5545 3.3.6 says (days on the wall clock, then exact seconds), with the
    /// result written so that it names the right instant (see `time(atUTC:in:)`).
    package static func end(of start: EventTime, after duration: CalDuration) -> EventTime {
        guard case .zoned(let local, let z) = start else { return start.adding(duration) }
        let shifted = local.adding(seconds: Int64(duration.days) * 86_400)
        return time(atUTC: z.utc(fromLocal: shifted) + duration.seconds, in: z)
    }

    /// The instant as wall-clock time in `zone`, or as UTC when the wall clock cannot name it: in the repeated
    /// hour after a fall-back change, a TZID time always means the first of the two instants (RFC 5545
    /// 3.3.5), so the second one (01:30 EST on the night New York leaves EDT) is written in UTC.
    package static func time(atUTC instant: Int64, in zone: Zone) -> EventTime {
        let local = zone.local(fromUTC: instant)
        return zone.utc(fromLocal: local) == instant ? .zoned(local, zone) : .utc(instant)
    }

    /// A wall-clock instant moved out of a DST gap (02:30 on a spring-forward night becomes 03:30).
    func normalized(_ time: EventTime) -> EventTime {
        guard case .zoned(let l, let z) = time else { return time }
        let fixed = z.local(fromUTC: z.utc(fromLocal: l))
        return fixed == l ? time : .zoned(fixed, z)
    }

    /// Marks a start an EXRULE removed (no wall-clock instance is this far in the past).
    static let excludedMark = Int64.min

    /// A duration as seconds, for widening ranges (saturating: a hostile duration of Int.max days widens to
    /// everything, it does not trap).
    static func seconds(of duration: CalDuration) -> Int64 {
        let days = Int64(clamping: duration.days.magnitude)
        let (daySeconds, overflow) = days.multipliedReportingOverflow(by: 86_400)
        return overflow ? Int64.max / 4 : min(Int64.max / 4, daySeconds &+ Int64(clamping: duration.seconds.magnitude))
    }

    /// The rule without BYHOUR, BYMINUTE and BYSECOND, for an all-day series (its instances are dates).
    static func withoutTimeOfDay(_ rule: RecurrenceRule) -> RecurrenceRule {
        guard !rule.byHour.isEmpty || !rule.byMinute.isEmpty || !rule.bySecond.isEmpty else { return rule }
        switch rule.frequency {
        case .hourly, .minutely, .secondly: return rule
        default: break
        }
        var r = rule
        r.byHour = []
        r.byMinute = []
        r.bySecond = []
        return r
    }

    func instanceKey(_ local: CivilDateTime, isDate: Bool) -> Int64 {
        isDate ? Int64(local.date.daysSinceEpoch) * 86_400 : local.secondsSinceEpoch
    }

    /// Occurrences in the deterministic output order: start instant, then UID, then original start (dates and
    /// floating times read in `zone`). Each instant is computed once.
    package static func sorted(_ occurrences: [Occurrence], zone: Zone) -> [Occurrence] {
        var instants = ZoneCursor.Instants(pipelineZone: zone)
        var keyed = occurrences.indices.map { i -> (start: Int64, original: Int64, index: Int) in
            let s = instants.utcSeconds(occurrences[i].start)
            guard let rid = occurrences[i].recurrenceID else { return (s, s, i) }
            return (s, instants.utcSeconds(rid), i)
        }
        keyed.sort { a, b in
            if a.start != b.start { return a.start < b.start }
            let ua = occurrences[a.index].event.uid, ub = occurrences[b.index].event.uid
            if ua != ub { return ua < ub }
            if a.original != b.original { return a.original < b.original }
            return a.index < b.index
        }
        return keyed.map { occurrences[$0.index] }
    }
}
