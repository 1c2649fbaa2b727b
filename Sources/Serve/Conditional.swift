import Foundation
import HTTPTypes

/// Conditional requests and content coding (RFC 9110 13.1, 12.5.3), as the feeds and the days API answer them.
enum Conditional {
    /// Whether the client's copy is current: `If-None-Match` lists `etag` or `gzipETag` (or `*`); without it,
    /// `If-Modified-Since` is at or after `lastModified`.
    static func notModified(_ headers: HTTPFields, etag: String, gzipETag: String, lastModified: Date?) -> Bool {
        if let match = headers[.ifNoneMatch] {
            // The common case, one tag as it was sent: no splitting.
            if match == etag || match == gzipETag { return true }
            return match.split(separator: ",").contains { item in
                var tag = item.trimmingCharacters(in: .whitespaces)
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag.removeFirst(2) }  // the weak comparison, as GET allows
                return tag == etag || tag == gzipETag
            }
        }
        if let lastModified, let text = headers[.ifModifiedSince], let since = HTTPDate.parse(text) {
            return lastModified <= since
        }
        return false
    }

    /// Whether `Accept-Encoding` takes gzip (listed, or `*`, with a q-value above 0).
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if q > 0 { return true }
        }
        return false
    }
}
