/// Builds a `Zone` from an iCalendar VTIMEZONE (RFC 5545 3.6.5): its STANDARD and DAYLIGHT blocks, each with
/// DTSTART, TZOFFSETFROM, TZOFFSETTO and optional RRULE / RDATE, become a list of transitions.
///
/// Each block's DTSTART is an onset (read at TZOFFSETFROM), and so is every RDATE and every instance of its
/// RRULE, expanded by the recurrence engine (`RecurrenceRule.forEachOccurrence`) up to 2200, the range
/// `Zone.system` covers. Onsets are sorted; each one whose TZOFFSETTO differs from the offset in force becomes a
/// transition, and the zone starts at the TZOFFSETFROM of its earliest onset.
public enum VTimeZone {
    /// The last year onsets are generated for.
    static let lastYear = 2200
    /// One onset a year from 1601 (Outlook's favourite DTSTART) to 2200, with room to spare.
    static let maxOnsetsPerRule = 1000

    public static func zone(from component: RawComponent) throws -> Zone {
        guard let tzid = component.properties.first(where: { $0.name == "TZID" })?.value else {
            throw CalpipeError("VTIMEZONE has no TZID")
        }
        var onsets: [(utc: Int64, from: Int32, to: Int32)] = []
        for block in component.components where block.name == "STANDARD" || block.name == "DAYLIGHT" {
            func value(_ name: String) throws -> String {
                guard let v = block.properties.first(where: { $0.name == name })?.value else {
                    throw CalpipeError("\(block.name) has no \(name)")
                }
                return v.trimmingCharacters(in: [" ", "\t"])
            }
            let startText = try value("DTSTART")
            guard let startTime = BasicDateText.parse(startText) else { throw CalpipeError("\(block.name) DTSTART \"\(startText)\" is not a date-time") }
            let start = startTime.localTime
            let fromText = try value("TZOFFSETFROM")
            let toText = try value("TZOFFSETTO")
            guard let from = offset(fromText) else { throw CalpipeError("\(block.name) TZOFFSETFROM \"\(fromText)\" is not a UTC offset") }
            guard let to = offset(toText) else { throw CalpipeError("\(block.name) TZOFFSETTO \"\(toText)\" is not a UTC offset") }
            // The onset's wall-clock time is read with the offset in force before it.
            func add(_ local: CivilDateTime) { onsets.append((local.secondsSinceEpoch - Int64(from), from, to)) }
            add(start)
            for rdate in block.properties where rdate.name == "RDATE" {
                for item in rdate.value.split(separator: ",") {
                    let text = item.split(separator: "/").first.map(String.init) ?? ""
                    guard let t = BasicDateText.parse(text) else { throw CalpipeError("\(block.name) RDATE \"\(item)\" is not a date-time") }
                    if case .utc(let s) = t { onsets.append((s, from, to)) } else { add(t.localTime) }
                }
            }
            for rruleProperty in block.properties where rruleProperty.name == "RRULE" {
                let rule: RecurrenceRule
                do { rule = try RecurrenceRule(parsing: rruleProperty.value) } catch {
                    throw CalpipeError("\(block.name) RRULE: \(error)")
                }
                // Zone rules are yearly; anything else (hostile or broken input) would cost up to the engine's
                // limit per block, so it is refused, and a block gives at most `maxOnsetsPerRule` onsets.
                guard rule.frequency == .yearly else {
                    throw CalpipeError("\(block.name) RRULE FREQ=\(rule.frequency.rawValue) is not a time zone rule (expected FREQ=YEARLY)")
                }
                // The recurrence engine expands the rule; a UTC UNTIL is compared reading onsets at TZOFFSETFROM.
                let end = CivilDateTime(year: lastYear + 1, month: 1, day: 1)
                rule.forEachOccurrence(start: start, from: start, to: end, zone: Zone.fixed(offsetSeconds: Int(from)), includeStart: true, limit: maxOnsetsPerRule) { add($0) }
            }
        }
        guard !onsets.isEmpty else { throw CalpipeError("VTIMEZONE \"\(tzid)\" has no STANDARD or DAYLIGHT block") }
        onsets.sort { $0.utc < $1.utc }
        var transitions: [Int64] = []
        var offsets: [Int32] = [onsets[0].from]
        for onset in onsets {
            if onset.to != offsets[offsets.count - 1] {
                if let last = transitions.last, last == onset.utc {
                    offsets[offsets.count - 1] = onset.to
                    continue
                }
                transitions.append(onset.utc)
                offsets.append(onset.to)
            }
        }
        return Zone(identifier: tzid, transitions: transitions, offsets: offsets)
    }

    /// "+0100", "-0330", "+013045" -> seconds.
    static func offset(_ text: String) -> Int32? {
        let b = Array(text.utf8)
        guard b.count == 5 || b.count == 7, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-") else { return nil }
        var digits: [Int32] = []
        for c in b.dropFirst() {
            guard c >= 48, c <= 57 else { return nil }
            digits.append(Int32(c - 48))
        }
        let h = digits[0] * 10 + digits[1], m = digits[2] * 10 + digits[3]
        let s = digits.count == 6 ? digits[4] * 10 + digits[5] : 0
        guard m < 60, s < 60 else { return nil }
        let total = h * 3600 + m * 60 + s
        return b[0] == UInt8(ascii: "-") ? -total : total
    }
}
