import Pipeline

/// Turns a record (a JSON object, or an XML item seen through XPath) into an `Event`, by field names.
///
/// The record is read through a lookup: given a path ("when.begin", or an XPath for XML), it returns the
/// value there. `fields` maps calpipe's field names to such paths; a field that is not mapped is looked up
/// under its own name, so calpipe's own JSON format needs no mapping at all. Shared by the `json` and `xml`
/// sources so both read dates and fields the same way.
package struct EventMapping: Sendable {
    /// calpipe's field names, in the order they are documented.
    package static let fieldNames = [
        "uid", "title", "description", "location", "latitude", "longitude", "geo", "organizer", "attendees",
        "categories", "color", "url", "status", "start", "end", "duration", "all_day", "timezone", "end_timezone",
        "rrule", "exrule", "rdate", "exdate", "recurrence_id", "recurrence_range", "properties",
    ]

    package enum DateFormat: String, Sendable, CaseIterable {
        /// Strings are ISO-8601, numbers are epoch seconds (or milliseconds when 10^11 or more).
        case auto
        case iso8601
        case epochSeconds = "epoch-seconds"
        case epochMillis = "epoch-millis"
    }

    /// Path for each field that is mapped somewhere else than its own name.
    package var paths: [String: String]
    package var dateFormat: DateFormat
    /// Zone for local times written without an offset; nil keeps them floating.
    package var zone: Zone?

    package init(paths: [String: String] = [:], dateFormat: DateFormat = .auto, zone: Zone? = nil) {
        self.paths = paths
        self.dateFormat = dateFormat
        self.zone = zone
    }

    package func path(for field: String) -> String { paths[field] ?? field }

    /// Builds the event. `lookup` answers a path with the value there (nil when absent). Parts that can be
    /// repaired (an unparsable rule, one bad RDATE/EXDATE value, an unknown zone with its offsets in
    /// "starts_at"/"ends_at") are repaired and told to `warn` with the field's path; under `strict` they reject.
    package func event(lookup: (String) -> JSONValue?, zones: ZoneDatabase, strict: Bool = false,
                      warn: (String) -> Void = { _ in }) throws(CalpipeError) -> Event {
        try withoutActuallyEscaping(lookup) { lookup throws(CalpipeError) in
            try withoutActuallyEscaping(warn) { warn throws(CalpipeError) in
                try RecordReader(mapping: self, lookup: lookup, zones: zones, strict: strict, warn: warn).event()
            }
        }
    }

    /// Reads a time value: ISO-8601 text or epoch numbers, by `dateFormat`; local times get `zone` or stay floating.
    package func time(_ value: JSONValue, field: String, zone: Zone?) throws(CalpipeError) -> EventTime {
        switch value {
        case .number(let n):
            guard dateFormat != .iso8601 else { throw CalpipeError.rejected("expected an ISO-8601 string, got a number", path: field) }
            let millis = dateFormat == .epochMillis || (dateFormat == .auto && abs(n) >= 1e11)
            let seconds = millis ? n / 1000 : n
            guard seconds.isFinite, abs(seconds) < 1e11 else {
                throw CalpipeError.rejected("epoch time \(JSONWriter.numberText(n)) is out of range", path: field)
            }
            return .utc(Int64(seconds.rounded(.down)))
        case .string(let s):
            let trimmed = s.trimmingWhitespace()
            if dateFormat == .epochSeconds || dateFormat == .epochMillis {
                guard let n = Double(trimmed) else {
                    throw CalpipeError.rejected("invalid epoch time \"\(s)\" (expected a number)", path: field)
                }
                return try time(.number(n), field: field, zone: zone)
            }
            guard let parsed = ISODate.parse(trimmed) else {
                throw CalpipeError.rejected("invalid date \"\(s)\" (expected ISO-8601 such as 2026-11-23, 2026-11-23T09:00 or 2026-11-23T09:00:00+01:00)", path: field)
            }
            switch parsed {
            case .date(let d): return .date(d)
            case .local(let l): return zone.map { .zoned(l, $0) } ?? .floating(l)
            case .instant(let u, _):
                if let zone { return .zoned(zone.local(fromUTC: u), zone) }
                return .utc(u)
            }
        default:
            throw CalpipeError.rejected("expected a date string or epoch number, got \(value.kindDescription)", path: field)
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}

extension Substring {
    func trimmingWhitespace() -> String { String(self).trimmingWhitespace() }
}
