/// Where a place's forecast came from, for the run summary.
package enum ForecastOrigin: Hashable, Sendable {
    /// Downloaded during this run.
    case fetched
    /// Served from the HTTP cache (fresh, or revalidated with 304).
    case cache
    /// The service failed; an expired cached answer was used. The text says why.
    case stale(String)
    /// Read from a saved response file.
    case file
}

extension ForecastOrigin {
    /// The origin with the stale reason dropped, for counting.
    var counterKey: ForecastOrigin {
        if case .stale = self { return .stale("") }
        return self
    }
}
