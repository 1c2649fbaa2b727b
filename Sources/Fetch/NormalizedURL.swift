import Foundation

/// A URL in the form the cache keys on: scheme and host lower-cased, the default port and the fragment
/// dropped, an empty path written "/", and query parameters in a stable order, so that two spellings of
/// one request share one cache entry.
package struct NormalizedURL: Sendable, Hashable {
    package let text: String
    package let scheme: String
    package let host: String
    /// "host" or "host:port": what requests are serialised and rate-limited by.
    package let authority: String

    package init?(_ raw: String) {
        guard var components = URLComponents(string: raw.trimmingCharacters(in: .whitespaces)),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host?.lowercased(), !host.isEmpty else { return nil }
        components.scheme = scheme
        components.host = host
        if (scheme == "http" && components.port == 80) || (scheme == "https" && components.port == 443) { components.port = nil }
        components.fragment = nil
        if components.percentEncodedPath.isEmpty { components.percentEncodedPath = "/" }
        if let items = components.percentEncodedQueryItems {
            // Stable order: by name, keeping the written order of repeated names.
            let ordered = items.enumerated().sorted { a, b in
                a.element.name != b.element.name ? a.element.name < b.element.name : a.offset < b.offset
            }.map(\.element)
            components.percentEncodedQueryItems = ordered.isEmpty ? nil : ordered
        }
        guard let text = components.string else { return nil }
        self.text = text
        self.scheme = scheme
        self.host = host
        authority = components.port.map { "\(host):\($0)" } ?? host
    }
}
