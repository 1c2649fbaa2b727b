/// `Zone.utc(fromLocal:)` and `Zone.local(fromUTC:)` for runs of nearby times (the instances of one series,
/// a sorted batch): remembers the stretch between two transitions the last answer came from and answers
/// from it while the next time falls inside, without a binary search. Gives exactly the zone's answers:
/// a local time is read from the stretch only when it is more than three days from either end, so the
/// zone's own rule (offsets two days either side agree, see `Zone.utc(fromLocal:)`) would take the same
/// offset; near a transition it asks the zone.
struct ZoneCursor {
    let zone: Zone
    /// UTC instants [utcLow, utcHigh) where `offset` is in force.
    private var utcLow: Int64 = 1
    private var utcHigh: Int64 = 0
    /// Local times [localLow, localHigh) that map to `localTime - offset` by the zone's rule.
    private var localLow: Int64 = 1
    private var localHigh: Int64 = 0
    private var offset: Int64 = 0
    private static let margin: Int64 = 3 * 86_400

    init(_ zone: Zone) {
        self.zone = zone
    }

    /// Same as `zone.utc(fromLocal:)`.
    @inline(__always)
    mutating func utc(fromLocal local: CivilDateTime) -> Int64 {
        let l = local.secondsSinceEpoch
        if l >= localLow && l < localHigh { return l - offset }
        // Usually the time lies well inside the stretch that holds it read with the offset in force now: one
        // search finds that stretch, and its margins tell whether its offset is the zone's answer.
        remember(l - offset)
        if l >= localLow && l < localHigh { return l - offset }
        let u = zone.utc(fromLocal: local)
        remember(u)
        return u
    }

    /// Same as `zone.local(fromUTC:)`.
    @inline(__always)
    mutating func local(fromUTC utc: Int64) -> CivilDateTime {
        if utc >= utcLow && utc < utcHigh { return CivilDateTime(secondsSinceEpoch: utc + offset) }
        remember(utc)
        return CivilDateTime(secondsSinceEpoch: utc + offset)
    }

    /// Moves to the stretch between transitions that holds the UTC instant.
    private mutating func remember(_ utc: Int64) {
        let t = zone.transitions
        var low = 0
        var high = t.count
        while low < high {
            let mid = (low + high) >> 1
            if t[mid] <= utc { low = mid + 1 } else { high = mid }
        }
        offset = Int64(zone.offsets[low])
        utcLow = low == 0 ? Int64.min : t[low - 1]
        utcHigh = low == t.count ? Int64.max : t[low]
        // Local times whose UTC reading two days either side (and the answer itself) stay in the stretch.
        localLow = utcLow == Int64.min ? Int64.min : utcLow + Self.margin
        localHigh = utcHigh == Int64.max ? Int64.max : utcHigh - Self.margin
        if localLow >= localHigh { (localLow, localHigh) = (1, 0) }
    }
}

extension ZoneCursor {
    /// `EventTime.utcSeconds(in:)` for many times, with a cursor for the pipeline's zone (dates and floating
    /// times) and one for each of the first few other zones met.
    struct Instants {
        private var pipeline: ZoneCursor
        private var others: [ZoneCursor] = []

        init(pipelineZone: Zone) {
            pipeline = ZoneCursor(pipelineZone)
        }

        /// Same as `time.utcSeconds(in: pipelineZone)`.
        mutating func utcSeconds(_ time: EventTime) -> Int64 {
            switch time {
            case .utc(let s): return s
            case .date(let d): return pipeline.utc(fromLocal: CivilDateTime(date: d))
            case .floating(let l): return pipeline.utc(fromLocal: l)
            case .zoned(let l, let z):
                if z === pipeline.zone { return pipeline.utc(fromLocal: l) }
                for i in others.indices where others[i].zone === z { return others[i].utc(fromLocal: l) }
                guard others.count < 8 else { return z.utc(fromLocal: l) }
                others.append(ZoneCursor(z))
                return others[others.count - 1].utc(fromLocal: l)
            }
        }
    }
}
