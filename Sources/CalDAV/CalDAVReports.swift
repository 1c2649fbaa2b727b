import Pipeline

/// The bodies of the REPORTs the `caldav` source sends (RFC 4791 7.8 and 7.9, RFC 6578 3.2).
enum CalDAVReports {
    /// calendar-query for the hrefs and ETags of the VEVENT resources overlapping [start, end) (UTC seconds),
    /// or all of them. Only hrefs: the data comes by calendar-multiget, in bounded batches. No `<expand>`: the
    /// pipeline's expand stage expands.
    static func eventQuery(from start: Int64?, to end: Int64?) -> String {
        var range = ""
        if let start, let end {
            range = "<c:time-range start=\"\(BasicDateText.format(.utc(start)))\" end=\"\(BasicDateText.format(.utc(end)))\"/>"
        }
        return """
            <?xml version="1.0" encoding="utf-8"?>
            <c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop>\
            <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">\(range)</c:comp-filter></c:comp-filter></c:filter>\
            </c:calendar-query>
            """
    }

    /// calendar-multiget of these hrefs, with their ETags and calendar data.
    static func multiget(_ hrefs: some Sequence<String>) -> String {
        var body = """
            <?xml version="1.0" encoding="utf-8"?>
            <c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>
            """
        for href in hrefs { body += "<d:href>" + escaped(href) + "</d:href>" }
        return body + "</c:calendar-multiget>"
    }

    /// sync-collection from `token` ("" for everything): the members changed or removed since, with ETags.
    static func syncCollection(token: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <d:sync-collection xmlns:d="DAV:"><d:sync-token>\(escaped(token))</d:sync-token><d:sync-level>1</d:sync-level>\
        <d:prop><d:getetag/></d:prop></d:sync-collection>
        """
    }

    /// PROPFIND of a collection's members (Depth 1), to tell which are still there.
    static let members = """
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>
        """

    /// Text for an XML element's content.
    static func escaped(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(ch)
            }
        }
        return out
    }
}
