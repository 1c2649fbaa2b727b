import Pipeline

/// What the `caldav` sink keeps of one resource it published (its plugin state, by UID): where it is, the ETag
/// the server gave, and the SHA-256 of what was sent (a later run that would send the same sends nothing).
struct CalDAVResourceEntry: Sendable, Hashable {
    var href: String
    var etag: String?
    var hash: String

    init(href: String, etag: String?, hash: String) {
        self.href = href
        self.etag = etag
        self.hash = hash
    }

    /// From the state: `[href, etag or null, hash]`.
    init?(_ value: JSONValue) {
        guard let parts = value.arrayValue, parts.count == 3, let href = parts[0].stringValue, let hash = parts[2].stringValue else { return nil }
        self.init(href: href, etag: parts[1].stringValue, hash: hash)
    }

    var json: JSONValue { .array([.string(href), etag.map(JSONValue.string) ?? .null, .string(hash)]) }

    /// The entries of a state, by UID.
    static func all(in state: PluginState?) -> [String: CalDAVResourceEntry] {
        var out: [String: CalDAVResourceEntry] = [:]
        for (uid, value) in state?["resources"]?.objectValue?.members ?? [] {
            if let entry = CalDAVResourceEntry(value) { out[uid] = entry }
        }
        return out
    }

    /// The state holding `entries`, UIDs sorted (the same entries give the same bytes).
    static func state(_ entries: [String: CalDAVResourceEntry]) -> PluginState {
        let members = entries.keys.sorted().map { (key: $0, value: entries[$0]!.json) }
        return PluginState(JSONObject([("resources", .object(JSONObject(members)))]))
    }
}
