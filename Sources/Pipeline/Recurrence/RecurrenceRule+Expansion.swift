/// The result of expanding one rule: occurrence starts in local wall-clock time, ascending, and whether a
/// limit cut the expansion short.
package struct RuleExpansion: Hashable, Sendable {
    /// Occurrence starts, wall-clock time of the series (the same clock as the `start` passed in), ascending.
    package var starts: [CivilDateTime]
    /// True when `limit` occurrences were reached, or the engine's work budget ran out, before `to`.
    package var truncated: Bool

    package init(starts: [CivilDateTime], truncated: Bool) {
        self.starts = starts
        self.truncated = truncated
    }
}

extension RecurrenceRule {
    /// The engine's work budget: periods and candidate days it examines for one rule before it gives up and
    /// reports `truncated`. Large enough for any real rule (a secondly rule over a year is 31.5 million
    /// seconds but is cut by `limit` long before).
    package static let workBudget = 50_000_000

    /// Expands the rule for a series whose first instance is `start` (DTSTART as wall-clock time), returning
    /// the occurrence starts `s` with `from <= s < to` (wall-clock time), ascending.
    ///
    /// - COUNT always counts from `start`, however far before `from` it is; without COUNT the engine jumps
    ///   straight to the period that holds `from`.
    /// - UNTIL is inclusive. A DATE UNTIL ends after that whole day; a UTC UNTIL is compared as an instant,
    ///   reading the wall-clock candidates in `zone` (pass the event's zone; nil reads them as UTC); a local
    ///   or zoned UNTIL is compared as wall-clock time.
    /// - `includeStart`: RFC 5545 3.3.10 says DTSTART is always the first occurrence, even when it does not
    ///   match the rule, and it then counts as one of COUNT. With `false` (python-dateutil's behaviour) only
    ///   instances the rule itself produces are returned and counted.
    /// - Invalid dates (February 30th, the 31st of a short month) are skipped, never moved.
    /// - At most `limit` starts are returned; `truncated` tells when more were left.
    ///
    /// Used by the expand stage and by importers that build zones from VTIMEZONE STANDARD/DAYLIGHT blocks
    /// (there, `start` is the block's DTSTART, `zone` a fixed zone at TZOFFSETFROM so a UTC UNTIL compares right).
    package func expand(start: CivilDateTime, from: CivilDateTime, to: CivilDateTime, zone: Zone? = nil,
                       includeStart: Bool = false, limit: Int = 100_000) -> RuleExpansion {
        var starts: [CivilDateTime] = []
        let truncated = forEachOccurrence(start: start, from: from, to: to, zone: zone, includeStart: includeStart, limit: limit) {
            starts.append($0)
        }
        return RuleExpansion(starts: starts, truncated: truncated)
    }

    /// Streaming form of `expand`: calls `body` with each occurrence start in order, without building an
    /// array. Returns true when the expansion was truncated by `limit` or the work budget.
    @discardableResult
    package func forEachOccurrence(start: CivilDateTime, from: CivilDateTime, to: CivilDateTime, zone: Zone? = nil,
                                  includeStart: Bool = false, limit: Int = 100_000,
                                  _ body: (CivilDateTime) -> Void) -> Bool {
        var engine = RuleEngine(rule: self, start: start.secondsSinceEpoch, zone: zone)
        return engine.run(from: from.secondsSinceEpoch, to: to.secondsSinceEpoch, includeStart: includeStart, limit: limit) {
            body(CivilDateTime(secondsSinceEpoch: $0))
        }
    }
}
