/// The calendars an RFC 7529 RSCALE rule may name that calpipe can expand. GREGORIAN with SKIP=OMIT is a
/// plain RFC 5545 rule (the engine skips dates a month or year does not have, which is OMIT).
enum RScaleCalendar {
    /// Upper-case RSCALE names (CLDR calendar names) calpipe expands.
    static let supportedNames = ["GREGORIAN"]

    static func isSupported(_ name: String) -> Bool {
        supportedNames.contains(name)
    }

    /// Why calpipe cannot expand an RSCALE rule it read, nil when it can.
    static func unsupported(_ rule: RecurrenceRule) -> String? {
        guard rule.rscale != nil else { return nil }
        if rule.skip != .omit { return "RRULE SKIP=\(rule.skip.rawValue) is not supported (only SKIP=OMIT)" }
        return nil
    }
}
