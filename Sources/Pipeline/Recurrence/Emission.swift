/// The end of the rule engine's pipe: drops candidates before DTSTART, adds DTSTART itself when the rule
/// must include it, applies UNTIL and COUNT (counted from DTSTART), the [from, to) window and the limit.
struct Emission {
    let start: Int64
    let from: Int64
    let to: Int64
    let count: Int?
    let untilLocal: Int64?
    let untilInstant: Int64?
    let zone: Zone?
    let limit: Int
    /// DTSTART still has to be offered (RFC 5545: it is always the first instance).
    var startPending: Bool
    var counted = 0
    var emitted = 0
    var done = false
    var truncated = false

    init(start: Int64, from: Int64, to: Int64, count: Int?, untilLocal: Int64?, untilInstant: Int64?, zone: Zone?,
         limit: Int, startPending: Bool) {
        self.start = start
        self.from = from
        self.to = to
        self.count = count
        self.untilLocal = untilLocal
        self.untilInstant = untilInstant
        self.zone = zone
        self.limit = limit
        self.startPending = startPending
    }

    /// Offers one candidate (ascending order). Returns false when nothing more can be emitted.
    @inline(__always)
    mutating func offer(_ candidate: Int64, _ body: (Int64) -> Void) -> Bool {
        if candidate < start { return true }
        if startPending {
            startPending = false
            if candidate == start { return acceptStart(body) }
            if !acceptStart(body) { return false }
        }
        return accept(candidate, body)
    }

    /// Counts `instances` instances that lie before the window (COUNT arithmetic for skipped periods).
    mutating func skip(instances: Int) {
        if startPending {
            // The skipped periods all lie after DTSTART's, so DTSTART comes first.
            startPending = false
            if !acceptStart({ _ in }) { return }
        }
        guard let count else { return }
        counted += instances
        if counted >= count { done = true }
    }

    /// Ends the run: DTSTART still pending means the rule produced nothing at or after it (or ran out of its
    /// work budget before it found anything): DTSTART is still the series' first instance.
    mutating func finish(_ body: (Int64) -> Void) {
        if startPending {
            startPending = false
            _ = acceptStart(body)
        }
    }

    /// DTSTART as an instance: it counts towards COUNT but is not subject to UNTIL or COUNT itself (an UNTIL
    /// before DTSTART still leaves DTSTART, the series' first instance).
    private mutating func acceptStart(_ body: (Int64) -> Void) -> Bool {
        counted += 1
        return deliver(start, body)
    }

    @inline(__always)
    private mutating func accept(_ candidate: Int64, _ body: (Int64) -> Void) -> Bool {
        if let untilLocal, candidate >= untilLocal - 172_800 {
            var after = candidate > untilLocal
            if let untilInstant, let zone, abs(candidate - untilLocal) <= 172_800 {
                // Near UNTIL the wall clock may repeat or skip an hour: compare the instants.
                after = zone.utc(fromLocal: CivilDateTime(secondsSinceEpoch: candidate)) > untilInstant
            }
            if after { done = true; return false }
        }
        if let count {
            if counted >= count { done = true; return false }
            counted += 1
        }
        return deliver(candidate, body)
    }

    @inline(__always)
    private mutating func deliver(_ instance: Int64, _ body: (Int64) -> Void) -> Bool {
        if instance >= to { done = true; return false }
        if instance >= from {
            if emitted >= limit { truncated = true; done = true; return false }
            body(instance)
            emitted += 1
        }
        return true
    }
}
