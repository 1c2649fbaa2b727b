import Pipeline

/// What the `caldav` source keeps of one calendar between runs (in its plugin state, under the calendar's
/// href), when it syncs: the RFC 6578 sync token, the span it has read (UTC seconds; nil: everything), and the
/// UID each resource held, which turns the hrefs sync-collection says were removed into deletions of events.
struct CalDAVCalendarState {
    var syncToken: String?
    var span: (start: Int64, end: Int64)?
    /// By href: the UID, and whether the resource held overrides (a changed resource then replaces the UID's
    /// rows whole, so an override removed on the server goes too).
    var resources: [String: (uid: String, overrides: Bool)] = [:]

    init(syncToken: String? = nil, span: (start: Int64, end: Int64)? = nil) {
        self.syncToken = syncToken
        self.span = span
    }

    init?(_ value: JSONValue?) {
        guard let object = value?.objectValue else { return nil }
        syncToken = object["sync_token"]?.stringValue
        if let span = object["span"]?.arrayValue, span.count == 2, let start = span[0].numberValue, let end = span[1].numberValue {
            self.span = (Int64(start), Int64(end))
        }
        for (href, value) in object["resources"]?.objectValue?.members ?? [] {
            if let uid = value.stringValue {
                resources[href] = (uid, false)
            } else if let uid = value.arrayValue?.first?.stringValue {
                resources[href] = (uid, true)
            }
        }
    }

    /// The JSON kept in the state: `{"sync_token": ..., "span": [start, end], "resources": {href: uid or [uid]}}`,
    /// hrefs sorted (the same state gives the same bytes).
    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let syncToken { members.append(("sync_token", .string(syncToken))) }
        if let span { members.append(("span", .array([.number(Double(span.start)), .number(Double(span.end))]))) }
        let resources = resources.keys.sorted().map { href -> (key: String, value: JSONValue) in
            let entry = self.resources[href]!
            return (href, entry.overrides ? .array([.string(entry.uid)]) : .string(entry.uid))
        }
        members.append(("resources", .object(JSONObject(resources))))
        return .object(JSONObject(members))
    }
}
