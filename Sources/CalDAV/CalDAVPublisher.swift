import CalHash
import Exporters
import Fetch
import Foundation
import Importers
import Pipeline

/// Sends one resource to the collection without ever overwriting a change made on the server: a new one with
/// `If-None-Match: *`, a changed one with `If-Match` and the ETag calpipe was given, a removed one by DELETE with
/// `If-Match`. A 412 is a conflict: the server's copy stays. Thread-safe (the sink runs several at once).
struct CalDAVPublisher: Sendable {
    let client: CalDAVClient
    /// The collection's address, ending in "/".
    let collection: String
    /// DTSTAMP of events that carry none (the run's time).
    let stamp: Int64
    /// For reading a resource back (`sameEvents`).
    let zones: ZoneDatabase
    let zone: Zone

    /// What became of one resource.
    struct Result: Sendable {
        var uid: String
        var outcome: RecordOutcome
        /// What to keep for it; nil: forget it.
        var entry: CalDAVResourceEntry?
        /// Why, for a conflict or a failure.
        var reason: String?
    }

    /// Publishes the events of one UID (a series and its overrides, or one event).
    func publish(uid: String, events: [Event], prior: CalDAVResourceEntry?) throws -> Result {
        // The hash leaves DTSTAMP out (it is the run's time for events without one): the same events are unchanged.
        let hash = SHA256.hex(of: ICSResourceText.calendar(events, stamp: 0))
        if let prior, prior.hash == hash { return Result(uid: uid, outcome: .unchanged, entry: prior) }
        let body = ICSResourceText.calendar(events, stamp: stamp)
        let href = prior?.href ?? CalDAVClient.path(of: collection) + Self.resourceName(uid)
        var headers = ["Content-Type": "text/calendar; charset=utf-8"]
        if let prior {
            guard let etag = prior.etag else {
                return Result(uid: uid, outcome: .conflict, entry: prior, reason: "the server gave no ETag for it, so it cannot be changed safely")
            }
            headers["If-Match"] = etag
        } else {
            headers["If-None-Match"] = "*"
        }
        let url = CalDAVClient.resolve(href, against: collection)
        let answer = try client.send(HTTPRequest(method: "PUT", url: url, headers: headers, body: body))
        switch answer.response.status {
        case 200..<300:
            let etag = try answer.etag ?? currentETag(url)
            return Result(uid: uid, outcome: prior == nil ? .created : .updated, entry: CalDAVResourceEntry(href: href, etag: etag, hash: hash))
        case 412:
            // A resource of that name is there, and no ETag of it was kept (a run whose state was not stored, as
            // after a failed record): when it holds these very events, it is calpipe's, and is kept as such.
            if prior == nil, let found = try? client.send(.get(url)), found.response.status == 200, let etag = found.etag,
               sameEvents(found.response.body, body) {
                return Result(uid: uid, outcome: .unchanged, entry: CalDAVResourceEntry(href: href, etag: etag, hash: hash))
            }
            return Result(uid: uid, outcome: .conflict, entry: prior,
                          reason: prior == nil ? "a resource with its name is already on the server (412 Precondition Failed); it is left as it is"
                                               : "it was changed on the server since calpipe wrote it (412 Precondition Failed); the server's copy is kept")
        default:
            return Result(uid: uid, outcome: .failed, entry: prior, reason: Self.refusal("PUT", answer))
        }
    }

    /// Removes a resource calpipe published, unless it changed on the server since.
    func remove(uid: String, entry: CalDAVResourceEntry) throws -> Result {
        var headers: [String: String] = [:]
        if let etag = entry.etag { headers["If-Match"] = etag }
        let answer = try client.send(HTTPRequest(method: "DELETE", url: CalDAVClient.resolve(entry.href, against: collection), headers: headers))
        switch answer.response.status {
        case 200..<300, 404, 410:
            return Result(uid: uid, outcome: .deleted, entry: nil)
        case 412:
            return Result(uid: uid, outcome: .conflict, entry: entry,
                          reason: "it left the feed, but it was changed on the server since calpipe wrote it (412 Precondition Failed); it is not deleted")
        default:
            return Result(uid: uid, outcome: .failed, entry: entry, reason: Self.refusal("DELETE", answer))
        }
    }

    /// Whether two resources hold the same events, whatever the order of their properties (a server may
    /// write them in its own order): compared as read, without where they were read.
    func sameEvents(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        func events(_ bytes: [UInt8]) -> [Event]? {
            var found: [Event] = []
            let reader = ICSReader(label: "resource", zones: zones, fallbackZone: zone, handlers: .init(event: { found.append($0) }, reject: { _, _ in }))
            guard (try? reader.parse(bytes)) != nil else { return nil }
            return found.map { event in
                var event = event
                event.origin = nil
                event.sourceText = nil
                event.metadata = [:]
                event.otherProperties.sort { ($0.name, $0.value) < ($1.name, $1.value) }
                return event
            }.sorted { ($0.recurrenceID?.time.utcSeconds(in: .utc) ?? .min) < ($1.recurrenceID?.time.utcSeconds(in: .utc) ?? .min) }
        }
        guard let first = events(a), let second = events(b) else { return false }
        return first == second
    }

    /// The ETag of a resource whose PUT answer carried none (PROPFIND getetag).
    private func currentETag(_ url: String) throws -> String? {
        let answer = try client.xml("PROPFIND", url, depth: "0", body: CalDAVReports.members)
        guard answer.response.status == 207 else { return nil }
        return try DAVResponse.parse(answer.response.body, label: answer.url).responses.first?.text("getetag", namespace: DAVNames.dav)
    }

    /// The resource's name in the collection: the UID and ".ics" when it is made of letters, digits and "._@-"
    /// only, else the SHA-256 of the UID in hex (a UID may hold "/", spaces or anything else a path cannot).
    static func resourceName(_ uid: String) -> String {
        let plain = !uid.isEmpty && uid.utf8.count <= 200 && uid.first != "." && uid.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "@"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
        return (plain ? uid : SHA256.hex(of: Array(uid.utf8))) + ".ics"
    }

    static func refusal(_ method: String, _ answer: FetchResult) -> String {
        let preview = answer.response.bodyPreview
        return "the server answered \(method) with \(answer.response.status)" + (preview.isEmpty ? "" : " (\(preview))")
    }
}
