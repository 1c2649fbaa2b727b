/// Splits one occurrence into the calendar days it touches in a zone. The rules:
/// - all-day: one entry per date from start to end (end exclusive; an end not after the start means one day);
/// - timed: one entry per local day from the start's day to the end's day, where an end at exactly 00:00
///   does not touch that day; a zero-length occurrence gives one entry on its day;
/// - each entry is clipped to its day; a day covered from 00:00 to the next 00:00 is all-day on that day;
/// - durations come from UTC instants, so DST days are 23 or 25 hours long.
package struct DaySplitter {
    package let zone: Zone
    /// Only days in [from, to) are returned when set.
    package let window: Window?

    package init(zone: Zone, window: Window?) {
        self.zone = zone
        self.window = window
    }

    /// How many entries `split` makes of `occurrence`, without making them (constant time, however many days
    /// it spans): the split stage counts what its cap drops this way.
    package func count(_ occurrence: Occurrence) -> Int {
        var first: CivilDate
        var last: CivilDate
        if case .date(let startDate) = occurrence.start {
            var endDate = startDate.adding(days: 1)
            if case .date(let e) = occurrence.end, e > startDate { endDate = e }
            first = startDate
            last = endDate.adding(days: -1)
        } else {
            let (startUTC, endUTC) = occurrence.interval(in: zone)
            let localEnd = zone.local(fromUTC: endUTC)
            first = zone.local(fromUTC: startUTC).date
            last = localEnd.date
            if endUTC > startUTC, localEnd.secondOfDay == 0 { last = last.adding(days: -1) }
            if last < first { last = first }
        }
        if let window {
            first = max(first, window.from)
            last = min(last, window.to.adding(days: -1))
        }
        return max(0, last.daysSinceEpoch - first.daysSinceEpoch + 1)
    }

    package func split(_ occurrence: Occurrence, into out: inout [DayEntry]) {
        if case .date(let startDate) = occurrence.start {
            var endDate = startDate.adding(days: 1)
            if case .date(let e) = occurrence.end, e > startDate { endDate = e }
            let parts = endDate.daysSinceEpoch - startDate.daysSinceEpoch
            var first = startDate
            var last = endDate.adding(days: -1)
            if let window {
                first = max(first, window.from)
                last = min(last, window.to.adding(days: -1))
            }
            guard first <= last else { return }
            for day in first.daysSinceEpoch...last.daysSinceEpoch {
                let date = CivilDate(daysSinceEpoch: day)
                let localStart = CivilDateTime(date: date)
                let localEnd = CivilDateTime(date: date.adding(days: 1))
                out.append(DayEntry(occurrence: occurrence, day: date, part: day - startDate.daysSinceEpoch + 1, parts: parts, allDay: true,
                                    start: localStart, end: localEnd,
                                    startUTC: zone.utc(fromLocal: localStart), endUTC: zone.utc(fromLocal: localEnd)))
            }
            return
        }
        let (startUTC, endUTC) = occurrence.interval(in: zone)
        let localStart = zone.local(fromUTC: startUTC)
        let localEnd = zone.local(fromUTC: endUTC)
        let firstDay = localStart.date
        var lastDay = localEnd.date
        if endUTC > startUTC, localEnd.secondOfDay == 0 { lastDay = lastDay.adding(days: -1) }
        if lastDay < firstDay { lastDay = firstDay }
        let parts = lastDay.daysSinceEpoch - firstDay.daysSinceEpoch + 1
        var from = firstDay
        var to = lastDay
        if let window {
            from = max(from, window.from)
            to = min(to, window.to.adding(days: -1))
        }
        guard from <= to else { return }
        for day in from.daysSinceEpoch...to.daysSinceEpoch {
            let date = CivilDate(daysSinceEpoch: day)
            let dayStartUTC = zone.utc(fromLocal: CivilDateTime(date: date))
            let nextDayStartUTC = zone.utc(fromLocal: CivilDateTime(date: date.adding(days: 1)))
            let s = max(startUTC, dayStartUTC)
            let e = min(endUTC, nextDayStartUTC)
            let wholeDay = s == dayStartUTC && e == nextDayStartUTC
            // The clipped end is written as the next day's 00:00 rather than a wall clock on this day.
            let clippedEnd = e == nextDayStartUTC ? CivilDateTime(date: date.adding(days: 1)) : zone.local(fromUTC: e)
            out.append(DayEntry(occurrence: occurrence, day: date, part: day - firstDay.daysSinceEpoch + 1, parts: parts, allDay: wholeDay,
                                start: zone.local(fromUTC: s), end: clippedEnd, startUTC: s, endUTC: e))
        }
    }
}
