import Foundation
import Importers
import Pipeline

/// The `ics-dump` target: what calpipe's iCalendar reader makes of the input, in the normalised lines that
/// scripts/peers/libical_diff.c prints for libical (scripts/fuzz-diff compares the two). Not a fuzz target: run
/// it on files (`calpipe-fuzz -runs=1 FILE...`); each input's lines follow a line `#calpipe-fuzz-input HASH`,
/// HASH the input's 64-bit FNV-1a hash in hex (libFuzzer may run an input more than once, so the script finds
/// each file's lines by it).
///
///   E  UID  RECURRENCE-ID  DTSTART  RRULE  FIRST-STARTS
///
/// Times: D20261102 (a date), U1793000000 (an instant), F20261102T100000 (floating); RRULE the rule's text,
/// FIRST-STARTS the first five starts the rule gives from DTSTART (as libical's iterator: only what the rule
/// matches, RDATE and EXDATE not applied; a trailing `+` when the work budget ended the search). An event
/// that was repaired (a `Repair` naming its UID) is printed as `R  UID  what was done`, a rejected one as
/// `J  UID  reason` (UID `-` when the rejection is not of one event), and the comparison leaves both out.
/// Warnings that are no repair of one event (a VTIMEZONE that cannot be read, ...) are lines `W  -  text`.
extension Harness {
    func dump(_ bytes: UnsafeRawBufferPointer) {
        var events: [Event] = []
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        var lines = ["#calpipe-fuzz-input " + String(hash, radix: 16)]
        var repaired: [String: String] = [:]
        var handlers = ICSReader.Handlers(
            event: { events.append($0) },
            reject: { _, reason in lines.append("J\t-\t\(Self.field(reason))") },
            warn: { lines.append("W\t-\t\(Self.field($0))") },
            repair: { repaired[$0.uid ?? "", default: $0.message] = $0.message })
        // A rejected event's text, for its UID.
        handlers.rejectEvent = { _, reason, text in lines.append("J\t\(Self.field(Self.uid(in: text)))\t\(Self.field(reason))") }
        let reader = ICSReader(label: "input", zones: zones, fallbackZone: berlin, handlers: handlers)
        do {
            try reader.feed(bytes.assumingMemoryBound(to: UInt8.self))
            try reader.finish()
        } catch {
            lines.append("J\t-\t\(Self.field(String(describing: error)))")
        }
        for event in events {
            if let repair = repaired[event.uid] {
                lines.append("R\t\(Self.field(event.uid))\t\(Self.field(repair))")
                continue
            }
            let rid = event.recurrenceID.map { Self.time($0.time) } ?? "-"
            var line = "E\t\(Self.field(event.uid))\t\(rid)\t\(Self.time(event.start))\t"
            if let rule = event.recurrence.rules.first {
                line += Self.field(rule.text) + "\t" + Self.firstStarts(of: rule, from: event.start)
            } else {
                line += "-\t-"
            }
            lines.append(line)
        }
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// The first five starts of `rule` for a series starting at `start`, in the dump's time form.
    private static func firstStarts(of rule: RecurrenceRule, from start: EventTime) -> String {
        let local = start.localTime
        let zone: Zone? = if case .zoned(_, let z) = start { z } else { nil }
        let to = CivilDateTime(year: local.date.year + 200, month: 1, day: 1)
        let expansion = rule.expand(start: local, from: local, to: to, zone: zone, limit: 5)
        if expansion.starts.isEmpty { return "-" }
        let text = expansion.starts.map { time(start.withLocalTime($0)) }.joined(separator: ",")
        return expansion.truncated && expansion.starts.count < 5 ? text + "+" : text
    }

    /// The value of the first UID line of an event's text (unfolded), or "".
    static func uid(in text: String) -> String {
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) where line.uppercased().hasPrefix("UID:") {
            return String(line.dropFirst(4))
        }
        return ""
    }

    static func time(_ time: EventTime) -> String {
        switch time {
        case .date(let d): return "D" + d.basicFormat
        case .utc(let s): return "U\(s)"
        case .zoned(let local, let zone): return "U\(zone.utc(fromLocal: local))"
        case .floating(let local): return "F" + local.basicFormat
        }
    }

    /// Tabs and line ends would break the line format: they become spaces; an empty field is `-`.
    static func field(_ text: String) -> String {
        if text.isEmpty { return "-" }
        return String(text.map { $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
    }
}
