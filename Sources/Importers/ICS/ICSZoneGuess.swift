import Foundation
import Pipeline

/// The last resorts for a TZID that no zone database name, Windows name or VTIMEZONE of the file defines
/// (issue 15), tried in this order:
/// 1. an IANA name inside it: `custom_America/New_York`, `(GMT+01.00) Europe/Berlin`;
/// 2. an Outlook display name, `(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna`: the first city
///    that names an IANA zone whose standard offset is the one in parentheses;
/// 3. a fixed offset: `GMT+1`, `UTC+11`, `UTC-03:30`, `GMT+0530` (GMT+1 is one hour east of Greenwich, as people
///    write it and as python-dateutil reads it, not the POSIX sign; `Etc/GMT-3` is an IANA name and keeps its
///    POSIX sign).
/// Nil when none fits: the caller then reads the time in the pipeline's zone, with a warning.
enum ICSZoneGuess {
    static func zone(for tzid: String, zones: ZoneDatabase) -> Zone? {
        if let embedded = embeddedIANAName(tzid), let zone = zones.zone(named: embedded) { return zone }
        // "Pacific Time (US & Canada),Tijuana": a display name without its offset.
        let lower = tzid.lowercased()
        for candidate in [lower, String(lower.prefix { $0 != "," })] {
            if let named = regions[candidate.trimmingCharacters(in: .whitespaces)], let zone = zones.zone(named: named) { return zone }
        }
        let offset = offsetSeconds(in: tzid)
        if let open = tzid.firstIndex(of: "("), let close = tzid[open...].firstIndex(of: ")") {
            let rest = tzid[tzid.index(after: close)...].trimmingCharacters(in: .whitespaces).lowercased()
            if let named = regions[rest], let zone = zones.zone(named: named) { return zone }
            let cities = tzid[tzid.index(after: close)...].split(whereSeparator: { $0 == "," || $0 == ";" || $0 == "/" })
            for city in cities {
                let key = city.trimmingCharacters(in: .whitespaces).lowercased()
                guard let identifier = cityIndex[key], let zone = zones.zone(named: identifier) else { continue }
                if let offset, standardOffset(zone) != offset { continue }
                return zone
            }
        }
        if let offset {
            if offset == 0 { return zones.zone(named: "UTC") }
            return Zone.fixed(offsetSeconds: offset)
        }
        return nil
    }

    /// Outlook display names that name no city, by what follows the offset (lower case).
    private static let regions: [String: String] = [
        "eastern time (us & canada)": "America/New_York", "central time (us & canada)": "America/Chicago",
        "mountain time (us & canada)": "America/Denver", "pacific time (us & canada)": "America/Los_Angeles",
        "atlantic time (canada)": "America/Halifax", "alaska": "America/Anchorage", "hawaii": "Pacific/Honolulu",
        "arizona": "America/Phoenix", "newfoundland": "America/St_Johns", "coordinated universal time": "UTC",
        "indiana (east)": "America/Indiana/Indianapolis", "saskatchewan": "America/Regina",
    ]

    private static let areas = ["Africa/", "America/", "Antarctica/", "Arctic/", "Asia/", "Atlantic/", "Australia/", "Europe/",
                                "Indian/", "Pacific/"]

    /// "custom_America/New_York" -> "America/New_York".
    static func embeddedIANAName(_ tzid: String) -> String? {
        for area in areas {
            guard let r = tzid.range(of: area), r.lowerBound != tzid.startIndex else { continue }
            let rest = tzid[r.lowerBound...].prefix { $0.isLetter || $0 == "/" || $0 == "_" || $0 == "-" || $0.isNumber }
            return String(rest)
        }
        return nil
    }

    /// The offset in "UTC+01:00", "(GMT-03.30) ...", "GMT+1", "UTC+0530", "UTC", or nil.
    static func offsetSeconds(in tzid: String) -> Int? {
        let u = Array(tzid.uppercased().utf8)
        var i = 0
        if u.first == UInt8(ascii: "(") { i = 1 }
        guard u.count >= i + 3 else { return nil }
        let prefix = String(decoding: u[i..<(i + 3)], as: UTF8.self)
        guard prefix == "UTC" || prefix == "GMT" else { return nil }
        i += 3
        while i < u.count, u[i] == 0x20 { i += 1 }
        guard i < u.count, u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") else {
            // "UTC", "(UTC) Coordinated Universal Time", "(GMT) Greenwich Mean Time : Dublin, ..."
            return i == u.count || u[i] == UInt8(ascii: ")") ? 0 : nil
        }
        let sign = u[i] == UInt8(ascii: "-") ? -1 : 1
        i += 1
        var digits: [Int] = []
        var separated = false
        while i < u.count, digits.count < 4 {
            let c = u[i]
            if c >= 0x30, c <= 0x39 {
                digits.append(Int(c - 0x30))
            } else if (c == UInt8(ascii: ":") || c == UInt8(ascii: ".")), !separated, !digits.isEmpty {
                separated = true
                if digits.count == 1 { digits.insert(0, at: 0) }
            } else {
                break
            }
            i += 1
        }
        // What follows must end the offset: the end, ")" or a blank.
        if i < u.count, u[i] != UInt8(ascii: ")"), u[i] != 0x20 { return nil }
        let hours: Int, minutes: Int
        switch digits.count {
        case 1: (hours, minutes) = (digits[0], 0)
        case 2: (hours, minutes) = (digits[0] * 10 + digits[1], 0)
        case 3: (hours, minutes) = (digits[0], digits[1] * 10 + digits[2])
        case 4: (hours, minutes) = (digits[0] * 10 + digits[1], digits[2] * 10 + digits[3])
        default: return nil
        }
        guard hours <= 14, minutes < 60 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }

    /// The smaller of the zone's offsets in January and July 2026: its standard offset.
    private static func standardOffset(_ zone: Zone) -> Int {
        min(zone.offset(atUTC: 1_767_225_600), zone.offset(atUTC: 1_782_864_000))
    }

    /// IANA zones by their city, lower case with blanks: "new york" -> "America/New_York".
    private static let cityIndex: [String: String] = {
        var index: [String: String] = [:]
        for identifier in TimeZone.knownTimeZoneIdentifiers.sorted() where areas.contains(where: { identifier.hasPrefix($0) }) {
            guard let city = identifier.split(separator: "/").last else { continue }
            let key = city.replacingOccurrences(of: "_", with: " ").lowercased()
            if index[key] == nil { index[key] = identifier }
        }
        return index
    }()
}
