/// The Retry-After header (RFC 9110 10.2.3): a number of seconds, or an HTTP date.
package enum RetryAfterText {
    /// Seconds to wait from `now` (seconds since 1970), or nil when the header is absent or unreadable.
    package static func seconds(_ header: String?, now: Double) -> Double? {
        guard let header = header?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return nil }
        if let seconds = Int(header), seconds >= 0 { return Double(seconds) }
        if let date = HTTPDate.parse(header) { return max(0, Double(date) - now) }
        return nil
    }
}
