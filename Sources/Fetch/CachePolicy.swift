/// What a caller wants from the cache for one request.
package struct CachePolicy: Sendable {
    /// Seconds an answer stays fresh when the server sends no Cache-Control max-age or Expires.
    /// Zero: keep it, but revalidate (If-None-Match / If-Modified-Since) every time.
    package var defaultTTL: Double
    /// Keep answers for good and never ask again, whatever the server says (geocoding results).
    package var keepForever: Bool
    /// Recognises an answer that means "no more requests today" (e.g. Open-Meteo's daily limit); returns
    /// the service's message. Such an answer stops every further request to that host for the run.
    package var limitAnswer: (@Sendable (HTTPResponse) -> String?)?
    /// Asked while waiting between retries: true stops the waiting (Ctrl-C during a long Retry-After).
    package var isCancelled: (@Sendable () -> Bool)?
    /// When the server cannot answer, a cached copy older than this many seconds is not used: the request
    /// fails, saying how old the copy is. Nil: a copy of any age stands in.
    package var maxStale: Double?

    package init(defaultTTL: Double = 3600, keepForever: Bool = false, limitAnswer: (@Sendable (HTTPResponse) -> String?)? = nil,
                isCancelled: (@Sendable () -> Bool)? = nil, maxStale: Double? = nil) {
        self.maxStale = maxStale
        self.defaultTTL = defaultTTL
        self.keepForever = keepForever
        self.limitAnswer = limitAnswer
        self.isCancelled = isCancelled
    }
}
