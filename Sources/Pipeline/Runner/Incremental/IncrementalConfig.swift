import Foundation

/// The config part of a source's fingerprint (`SourceFingerprint.config`): everything besides the input and
/// the window that shapes its rows. A change of any of it makes the next run read and write the source in full.
package enum IncrementalConfig {
    /// Bumped when calpipe changes what it makes of the same input (rows of unchanged events would differ).
    package static let formatVersion = 1

    package static func fingerprint(zone: Zone, source: JSONObject, stages: [JSONObject]) -> String {
        let writer = JSONWriter(pretty: false)
        var text = "calpipe-incremental \(formatVersion)\nzone \(zone.identifier) \(zone.transitions.count) "
        text += zone.transitions.map(String.init).joined(separator: ",") + " " + zone.offsets.map(String.init).joined(separator: ",")
        text += "\nsource " + writer.string(.object(source))
        for stage in stages { text += "\nstage " + writer.string(.object(stage)) }
        return Fingerprint.text(text)
    }

    /// The window as stored with a fingerprint: "FROM/TO", "" without one.
    package static func windowText(_ window: Window?) -> String {
        guard let window else { return "" }
        return window.from.iso8601 + "/" + window.to.iso8601
    }

    /// The UTC ranges of `current` that `previous` did not cover (what a moved window gained), or nil when they
    /// cannot be compared (one of them is missing or unreadable).
    package static func gained(current: String, previous: String, zone: Zone) -> [Range<Int64>]? {
        if current == previous { return [] }
        guard let c = parse(current), let p = parse(previous) else { return nil }
        let (cs, ce) = c.utcRange(in: zone)
        let (ps, pe) = p.utcRange(in: zone)
        var out: [Range<Int64>] = []
        if cs < min(ce, ps) { out.append(cs..<min(ce, ps)) }
        if max(cs, pe) < ce { out.append(max(cs, pe)..<ce) }
        return out
    }

    static func parse(_ text: String) -> Window? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let from = ISODate.parseDate(String(parts[0])), let to = ISODate.parseDate(String(parts[1])), from < to else { return nil }
        return Window(from: from, to: to)
    }
}
