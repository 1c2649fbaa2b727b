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
public struct SeriesExpander {
    /// The span occurrences must touch, as UTC instants: [from, to); nil `from` means from DTSTART on.
    public struct Span: Hashable, Sendable {
        public var from: Int64?
        public var to: Int64

        public init(from: Int64?, to: Int64) {
            self.from = from
            self.to = to
        }

        /// The window rule: an occurrence [start, end) is in when start < to and end > from; a zero-length one
        /// when from <= start < to.
        public func contains(start: Int64, end: Int64) -> Bool {
            let lower = from ?? Int64.min
            if end <= start { return start >= lower && start < to }
            return start < to && end > lower
        }
    }

    public struct Result {
        /// Occurrences of the series touching the span, sorted by start, then by original start.
        public var occurrences: [Occurrence]
        /// True when the series had more than `maxOccurrences` instances in the span (only the first were kept).
        public var truncated: Bool
    }

    /// The pipeline's zone: dates and floating times are read in it.
    public var zone: Zone
    public var span: Span
    public var maxOccurrences: Int
    public var includeCancelled: Bool

    public init(zone: Zone, span: Span, maxOccurrences: Int = 100_000, includeCancelled: Bool = false) {
        self.zone = zone
        self.span = span
        self.maxOccurrences = maxOccurrences
        self.includeCancelled = includeCancelled
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
        case .date(let d): return CivilDateTime(date: d)
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
    public func expand(_ master: Event, overrides: [Event] = []) -> Result {
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
            exact[key] = o
            if rid.thisAndFuture {
                let newStart = wallClock(o.start, clock: clock, series: master.start).secondsSinceEpoch
                futures.append((key, newStart - key, o, o.occurrenceDuration(in: zone)))
            }
        }
        futures.sort { $0.from < $1.from }
        let maxShift = futures.map { abs($0.shift) }.max() ?? 0

        // The wall-clock range to generate: the span read on the series' clock, widened by the longest
        // duration, the largest THISANDFUTURE shift and a day for zone offsets.
        let reach = Int64(abs(duration.days)) * 86_400 + abs(duration.seconds) + maxShift + 2 * 86_400
        var periodReach: Int64 = 0
        for date in master.recurrence.dates {
            if case .period(let s, let e) = date { periodReach = max(periodReach, e.utcSeconds(in: zone) - s.utcSeconds(in: zone)) }
            if case .periodWithDuration(_, let d) = date { periodReach = max(periodReach, Int64(abs(d.days)) * 86_400 + abs(d.seconds)) }
        }
        let fromLocal: Int64 = span.from.map { clock.local(fromUTC: $0).secondsSinceEpoch - reach - periodReach } ?? startLocal.secondsSinceEpoch
        let toLocal: Int64 = clock.local(fromUTC: span.to).secondsSinceEpoch + maxShift + 2 * 86_400
        let from = CivilDateTime(secondsSinceEpoch: max(fromLocal, startLocal.secondsSinceEpoch))
        let to = CivilDateTime(secondsSinceEpoch: max(toLocal, startLocal.secondsSinceEpoch + 1))

        // The recurrence set, as wall-clock seconds, with any PERIOD end.
        var truncated = false
        var starts: [Int64] = []
        if master.recurrence.rules.isEmpty {
            if startLocal >= from && startLocal < to { starts.append(startLocal.secondsSinceEpoch) }
        }
        for rule in master.recurrence.rules {
            let r = rule.forEachOccurrence(start: startLocal, from: from, to: to, zone: clock, includeStart: true,
                                           limit: maxOccurrences + 1) { starts.append($0.secondsSinceEpoch) }
            truncated = truncated || r
        }
        var periodEnds: [Int64: EventTime] = [:]
        for date in master.recurrence.dates {
            let local = wallClock(date.start, clock: clock, series: master.start)
            guard local >= from && local < to else { continue }
            starts.append(local.secondsSinceEpoch)
            switch date {
            case .time: break
            case .period(_, let end): periodEnds[local.secondsSinceEpoch] = end
            case .periodWithDuration(let s, let d): periodEnds[local.secondsSinceEpoch] = s.adding(d)
            }
        }
        starts.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(starts.count)
        for s in starts where s != unique.last { unique.append(s) }

        // Exclusions: EXRULE instances and EXDATEs (a DATE EXDATE on a timed series removes that whole day).
        var excluded = Set<Int64>()
        var excludedDays = Set<Int>()
        for rule in master.recurrence.exceptionRules {
            rule.forEachOccurrence(start: startLocal, from: from, to: to, zone: clock, includeStart: false,
                                   limit: Int.max) { excluded.insert($0.secondsSinceEpoch) }
        }
        for ex in master.recurrence.exceptionDates {
            if case .date(let d) = ex, !isDateSeries { excludedDays.insert(d.daysSinceEpoch); continue }
            excluded.insert(instanceKey(wallClock(ex, clock: clock, series: master.start), isDate: isDateSeries))
        }

        var occurrences: [Occurrence] = []
        var kept = 0
        var matchedOverrides = Set<Int64>()
        let masterCancelled = master.isCancelled
        var futureIndex = -1
        for s in unique {
            if excluded.contains(s) || excludedDays.contains(Int(floorDiv(s, 86_400))) { continue }
            if kept >= maxOccurrences { truncated = true; break }
            kept += 1
            let original = master.start.withLocalTime(CivilDateTime(secondsSinceEpoch: s))
            if exact[s] != nil {
                matchedOverrides.insert(s)
                continue  // the override stands in for it, at its own time (below)
            }
            while futureIndex + 1 < futures.count && futures[futureIndex + 1].from <= s { futureIndex += 1 }
            var event = master
            var startTime = normalized(original)
            var endTime: EventTime
            if futureIndex >= 0 {
                let f = futures[futureIndex]
                event = f.event
                startTime = normalized(master.start.withLocalTime(CivilDateTime(secondsSinceEpoch: s + f.shift)))
                endTime = startTime.adding(f.duration)
            } else if let end = periodEnds[s] {
                endTime = end
            } else {
                endTime = startTime.adding(duration)
            }
            if !includeCancelled && (masterCancelled || event.isCancelled) { continue }
            append(Occurrence(event: event, start: startTime, end: endTime, recurrenceID: original), to: &occurrences)
        }
        // Overrides show up at their own time, whether or not the rule produced their instance.
        for o in overrides {
            guard let rid = o.recurrenceID else { continue }
            if !includeCancelled && o.isCancelled { continue }
            let key = instanceKey(wallClock(rid.time, clock: clock, series: master.start), isDate: isDateSeries)
            if exact[key] != o { continue }  // a later duplicate override for the same instance won
            let original = master.start.withLocalTime(CivilDateTime(secondsSinceEpoch: key))
            append(Occurrence(event: o, start: o.start, end: o.end, recurrenceID: original), to: &occurrences)
        }
        return Result(occurrences: Self.sorted(occurrences, zone: zone), truncated: truncated)
    }

    /// A wall-clock instant moved out of a DST gap (02:30 on a spring-forward night becomes 03:30).
    func normalized(_ time: EventTime) -> EventTime {
        guard case .zoned(let l, let z) = time else { return time }
        let fixed = z.local(fromUTC: z.utc(fromLocal: l))
        return fixed == l ? time : .zoned(fixed, z)
    }

    func instanceKey(_ local: CivilDateTime, isDate: Bool) -> Int64 {
        isDate ? Int64(local.date.daysSinceEpoch) * 86_400 : local.secondsSinceEpoch
    }

    private func append(_ occurrence: Occurrence, to list: inout [Occurrence]) {
        let (s, e) = occurrence.interval(in: zone)
        if span.contains(start: s, end: e) { list.append(occurrence) }
    }

    /// Occurrences in the deterministic output order: start instant, then UID, then original start (dates and
    /// floating times read in `zone`). Each instant is computed once.
    public static func sorted(_ occurrences: [Occurrence], zone: Zone) -> [Occurrence] {
        var keyed = occurrences.indices.map { i -> (start: Int64, original: Int64, index: Int) in
            let o = occurrences[i]
            let s = o.start.utcSeconds(in: zone)
            return (s, o.recurrenceID?.utcSeconds(in: zone) ?? s, i)
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
