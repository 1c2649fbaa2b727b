/// How long a response may be served from the cache without asking the server, from its headers
/// (RFC 9111 4.2.1): Cache-Control max-age (minus Age), else Expires (relative to the server's Date),
/// else the caller's default time to live. `no-store` means the response must not be kept at all,
/// `no-cache` that it may be kept but must be revalidated every time.
package struct Freshness: Sendable, Hashable {
    /// False for `Cache-Control: no-store`.
    package var storable: Bool
    /// Until when (seconds since 1970 by the client's clock) the copy is fresh; `now` or earlier: revalidate on next use.
    package var freshUntil: Double

    package init(storable: Bool, freshUntil: Double) {
        self.storable = storable
        self.freshUntil = freshUntil
    }

    /// Reads the response's caching headers, received at `now`. `defaultTTL` applies when the server says nothing.
    package static func of(_ response: HTTPResponse, defaultTTL: Double, now: Double) -> Freshness {
        let directives = cacheControl(response.header("cache-control") ?? "")
        if directives["no-store"] != nil { return Freshness(storable: false, freshUntil: now) }
        if directives["no-cache"] != nil { return Freshness(storable: true, freshUntil: now) }
        let age = Double(response.header("age")?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        if let value = directives["max-age"] ?? directives["s-maxage"], let maxAge = Double(value) {
            return Freshness(storable: true, freshUntil: now + max(0, maxAge - age))
        }
        if let expiresText = response.header("expires") {
            // An invalid Expires (e.g. "0") means already expired.
            guard let expires = HTTPDate.parse(expiresText) else { return Freshness(storable: true, freshUntil: now) }
            // Relative to the server's own clock when it sent Date, so skewed clocks do not matter.
            if let dateText = response.header("date"), let date = HTTPDate.parse(dateText) {
                return Freshness(storable: true, freshUntil: now + max(0, Double(expires - date) - age))
            }
            return Freshness(storable: true, freshUntil: Double(expires))
        }
        return Freshness(storable: true, freshUntil: now + defaultTTL)
    }

    /// Cache-Control directives, names lower-cased, values unquoted ("" when a directive has none).
    package static func cacheControl(_ header: String) -> [String: String] {
        var out: [String: String] = [:]
        for part in header.split(separator: ",") {
            let item = part.trimmingCharacters(in: .whitespaces)
            guard !item.isEmpty else { continue }
            if let eq = item.firstIndex(of: "=") {
                let name = item[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
                var value = item[item.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                out[name] = value
            } else {
                out[item.lowercased()] = ""
            }
        }
        return out
    }
}
