import Foundation
import Pipeline

/// The calendar's own properties, the same in the `ics`, `xcal` and `jcal` sinks: VERSION, PRODID with
/// calpipe's version, CALSCALE, and the RFC 7986 ones: NAME (with X-WR-CALNAME for older clients),
/// REFRESH-INTERVAL (with X-PUBLISHED-TTL), COLOR (with X-APPLE-CALENDAR-COLOR for a "#rrggbb" colour).
struct ICalCalendarHead {
    static let productID = "-//calpipe//calpipe \(CalpipeVersion.current)//EN"

    /// NAME and X-WR-CALNAME; none when empty.
    var name: String?
    var refreshInterval: CalDuration?
    /// A CSS3 colour keyword.
    var color: String?
    /// The colour as given when it was "#rrggbb" or "#rgb" (`color` is then the nearest name): written as
    /// X-APPLE-CALENDAR-COLOR, the calendar colour Apple Calendar, Nextcloud, DAVx5 and ICSx5 read.
    var exactColor: String?

    init(name: String? = nil, refreshInterval: CalDuration? = nil, color: String? = nil) {
        self.name = name
        self.refreshInterval = refreshInterval
        self.color = color
    }

    /// "PT1H", "P1D", or a count with a unit: "90s", "30m", "1h", "2d", "1w".
    static func duration(_ text: String) -> CalDuration? {
        let t = text.trimmingCharacters(in: .whitespaces)
        if let d = CalDuration(iCalendar: t.uppercased()) { return d }
        guard let unit = t.last, let n = Int64(t.dropLast()), n >= 0, n < 1_000_000_000 else { return nil }
        switch unit {
        case "s", "S": return CalDuration(seconds: n)
        case "m", "M": return CalDuration(seconds: n * 60)
        case "h", "H": return CalDuration(seconds: n * 3600)
        case "d", "D": return CalDuration(days: Int(n))
        case "w", "W": return CalDuration(days: Int(n) * 7)
        default: return nil
        }
    }

    /// The properties in the order they are written.
    var properties: [(name: String, parameters: [Parameter], value: ICalValue)] {
        var out: [(name: String, parameters: [Parameter], value: ICalValue)] = [
            ("VERSION", [], .text("2.0")),
            ("PRODID", [], .text(Self.productID)),
            ("CALSCALE", [], .text("GREGORIAN")),
        ]
        if let name {
            out.append(("NAME", [], .text(name)))
            out.append(("X-WR-CALNAME", [], .text(name)))
        }
        if let refreshInterval {
            out.append(("REFRESH-INTERVAL", [Parameter("VALUE", "DURATION")], .duration(refreshInterval)))
            out.append(("X-PUBLISHED-TTL", [], .raw(refreshInterval.iCalendarText)))
        }
        if let color { out.append(("COLOR", [], .text(color))) }
        if let exactColor { out.append(("X-APPLE-CALENDAR-COLOR", [], .text(exactColor))) }
        return out
    }
}
