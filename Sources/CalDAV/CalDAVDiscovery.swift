import Fetch
import Foundation
import Pipeline

/// Finds the calendars of an account from a server address (RFC 6764, RFC 4791 6.2.1): the address itself when
/// it is a calendar, else its `current-user-principal` (asking the address, then `/.well-known/caldav`, then
/// the server's root), the principal's `calendar-home-set`, and the home's calendar collections with their
/// names, colours, ctags and sync tokens.
struct CalDAVDiscovery {
    let client: CalDAVClient

    static let principalQuery = """
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/><d:resourcetype/></d:prop></d:propfind>
        """
    static let homeQuery = """
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-home-set/></d:prop></d:propfind>
        """
    static let collectionQuery = """
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:a="http://apple.com/ns/ical/" xmlns:cs="http://calendarserver.org/ns/">\
        <d:prop><d:resourcetype/><d:displayname/><a:calendar-color/><cs:getctag/><d:sync-token/><c:supported-calendar-component-set/></d:prop>\
        </d:propfind>
        """

    /// The calendars at or below `url`, in the order the server lists them.
    func calendars(from url: String) throws -> [CalDAVCalendar] {
        // The address may be a calendar collection itself.
        let here = try client.xml("PROPFIND", url, depth: "0", body: Self.collectionQuery)
        if here.response.status == 207, let calendar = try? Self.calendars(in: here, base: url).first {
            return [calendar]
        }
        let principal = try findPrincipal(url)
        let answer = try client.xml("PROPFIND", principal, depth: "0", body: Self.homeQuery)
        guard answer.response.status == 207 else { throw CalDAVClient.unexpected("PROPFIND", answer, expected: "207 with the calendar-home-set") }
        let (responses, _) = try DAVResponse.parse(answer.response.body, label: answer.url)
        guard let homeHref = responses.lazy.compactMap({ $0.hrefInside("calendar-home-set", namespace: DAVNames.caldav) }).first else {
            throw CalpipeError("\(answer.url): the principal has no calendar-home-set: not a CalDAV account")
        }
        let home = CalDAVClient.resolve(homeHref, against: principal)
        return try collections(at: home, depth: "1")
    }

    /// The principal's address: from the address given, else `/.well-known/caldav`, else the root.
    private func findPrincipal(_ url: String) throws -> String {
        var tried: [String] = []
        for candidate in [url, CalDAVClient.resolve("/.well-known/caldav", against: url), CalDAVClient.resolve("/", against: url)] where !tried.contains(candidate) {
            tried.append(candidate)
            let answer = try client.xml("PROPFIND", candidate, depth: "0", body: Self.principalQuery)
            guard answer.response.status == 207, let (responses, _) = try? DAVResponse.parse(answer.response.body, label: answer.url) else { continue }
            if let href = responses.lazy.compactMap({ $0.hrefInside("current-user-principal", namespace: DAVNames.dav) }).first {
                return CalDAVClient.resolve(href, against: candidate)
            }
        }
        throw CalpipeError("\(URLRedaction.redact(url)): no CalDAV account found (no current-user-principal at the address, at /.well-known/caldav or at /); give the address of the calendar home or of a calendar")
    }

    /// The calendar collections a PROPFIND at `url` lists.
    private func collections(at url: String, depth: String) throws -> [CalDAVCalendar] {
        let answer = try client.xml("PROPFIND", url, depth: depth, body: Self.collectionQuery)
        guard answer.response.status == 207 else { throw CalDAVClient.unexpected("PROPFIND", answer, expected: "207 with the calendars") }
        return try Self.calendars(in: answer, base: url)
    }

    /// The calendar collections of a PROPFIND answer.
    private static func calendars(in answer: FetchResult, base url: String) throws -> [CalDAVCalendar] {
        let (responses, _) = try DAVResponse.parse(answer.response.body, label: answer.url)
        return responses.compactMap { response in
            guard response.prop("resourcetype", namespace: DAVNames.dav)?.child("calendar", namespace: DAVNames.caldav) != nil else { return nil }
            let path = response.href.split(separator: "/").last.map(String.init) ?? response.href
            let components = response.prop("supported-calendar-component-set", namespace: DAVNames.caldav)?
                .children("comp", namespace: DAVNames.caldav).compactMap { $0.attribute("name")?.uppercased() } ?? []
            return CalDAVCalendar(
                href: response.href, url: CalDAVClient.resolve(response.href, against: url),
                name: response.text("displayname", namespace: DAVNames.dav) ?? (path.removingPercentEncoding ?? path),
                color: response.text("calendar-color", namespace: DAVNames.apple).flatMap { CSSColor.hex($0, allowAlpha: true) },
                ctag: response.text("getctag", namespace: DAVNames.calendarServer),
                syncToken: response.text("sync-token", namespace: DAVNames.dav),
                components: components)
        }
    }
}
