import Foundation

/// A time zone's rules as plain integers: UTC offsets between sorted transition instants.
///
/// Built once per zone (from the system's zone database, or from an iCalendar VTIMEZONE), then every
/// conversion is a binary search: no Foundation calls on the hot path. Immutable, so it is shared freely.
public final class Zone: Hashable, Sendable, CustomStringConvertible {
    /// The zone's name: an IANA identifier, or the TZID of a custom VTIMEZONE.
    public let identifier: String
    /// UTC instants (seconds since 1970) at which the offset changes, ascending.
    public let transitions: [Int64]
    /// `offsets[i]` is in force before `transitions[i]`; the last one after the last transition.
    public let offsets: [Int32]

    public static let utc = Zone(identifier: "UTC", transitions: [], offsets: [0])

    public init(identifier: String, transitions: [Int64], offsets: [Int32]) {
        precondition(offsets.count == transitions.count + 1, "a zone needs one more offset than transitions")
        self.identifier = identifier
        self.transitions = transitions
        self.offsets = offsets
    }

    /// A fixed-offset zone such as "UTC+02:00".
    public static func fixed(offsetSeconds: Int, identifier: String? = nil) -> Zone {
        Zone(identifier: identifier ?? "UTC" + Zone.offsetText(offsetSeconds), transitions: [], offsets: [Int32(offsetSeconds)])
    }

    /// Loads an IANA zone from the system's zone database, with its transitions from 1800 to 2200.
    /// Returns nil when the system does not know the name.
    public static func system(identifier: String) -> Zone? {
        guard let tz = TimeZone(identifier: identifier) else { return nil }
        // Foundation accepts some abbreviations and offsets ("GMT+1"); we want real database names only.
        guard identifier == "UTC" || identifier.contains("/") || knownSingleNames.contains(identifier) else { return nil }
        var transitions: [Int64] = []
        var offsets: [Int32] = []
        var cursor = Date(timeIntervalSince1970: -5_364_662_400)  // 1800-01-01
        let end = 7_258_118_400.0  // 2200-01-01
        offsets.append(Int32(tz.secondsFromGMT(for: cursor)))
        while let next = tz.nextDaylightSavingTimeTransition(after: cursor), next.timeIntervalSince1970 < end {
            let offset = Int32(tz.secondsFromGMT(for: next))
            if offset != offsets.last {
                transitions.append(Int64(next.timeIntervalSince1970))
                offsets.append(offset)
            }
            cursor = next
        }
        return Zone(identifier: identifier, transitions: transitions, offsets: offsets)
    }

    private static let knownSingleNames: Set<String> = [
        "GMT", "UTC", "UCT", "Zulu", "Universal", "Greenwich", "EST", "MST", "HST", "EST5EDT", "CST6CDT", "MST7MDT",
        "PST8PDT", "CET", "EET", "MET", "WET", "Iceland", "Japan", "Singapore", "Turkey", "Egypt", "Eire", "Israel",
        "Jamaica", "Libya", "Navajo", "Poland", "Portugal", "PRC", "ROC", "ROK", "Cuba", "Hongkong", "Iran", "Kwajalein", "NZ",
    ]

    /// Index of the offset in force at `utc`.
    @inline(__always)
    private func index(atUTC utc: Int64) -> Int {
        var low = 0
        var high = transitions.count
        while low < high {
            let mid = (low + high) >> 1
            if transitions[mid] <= utc { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The UTC offset in seconds in force at the UTC instant.
    public func offset(atUTC utc: Int64) -> Int {
        Int(offsets[index(atUTC: utc)])
    }

    /// The wall-clock time at a UTC instant.
    public func local(fromUTC utc: Int64) -> CivilDateTime {
        CivilDateTime(secondsSinceEpoch: utc + Int64(offset(atUTC: utc)))
    }

    /// The UTC instant of a wall-clock time, following RFC 5545 3.3.5: a time in a gap (spring forward) is
    /// moved forward by the length of the gap; an ambiguous time (fall back) takes the first of the two.
    public func utc(fromLocal local: CivilDateTime) -> Int64 {
        let l = local.secondsSinceEpoch
        if transitions.isEmpty { return l - Int64(offsets[0]) }
        let before = Int64(offset(atUTC: l - 86_400 * 2))
        let after = Int64(offset(atUTC: l + 86_400 * 2))
        if before == after {
            // No transition nearby, or one that returns to the same offset: try the direct answer first.
            let u = l - before
            if Int64(offset(atUTC: u)) == before { return u }
        }
        let u1 = l - before
        let u2 = l - after
        let valid1 = Int64(offset(atUTC: u1)) == before
        let valid2 = Int64(offset(atUTC: u2)) == after
        switch (valid1, valid2) {
        case (true, true): return min(u1, u2)
        case (true, false): return u1
        case (false, true): return u2
        case (false, false): return u1  // in the gap: the offset before the change moves it forward
        }
    }

    /// "+01:00" style text for an offset in seconds ("+05:45", "-03:30", "+00:00").
    public static func offsetText(_ seconds: Int, separator: Bool = true) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let magnitude = abs(seconds)
        let hours = pad(magnitude / 3600, 2)
        let minutes = pad(magnitude / 60 % 60, 2)
        var text = sign + hours + (separator ? ":" : "") + minutes
        if magnitude % 60 != 0 { text += (separator ? ":" : "") + pad(magnitude % 60, 2) }
        return text
    }

    public var description: String { identifier }

    public static func == (lhs: Zone, rhs: Zone) -> Bool {
        lhs === rhs || (lhs.identifier == rhs.identifier && lhs.transitions == rhs.transitions && lhs.offsets == rhs.offsets)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
}
