/// What a caller wants from the cache for one request.
public struct CachePolicy: Sendable {
    /// Seconds an answer stays fresh when the server sends no Cache-Control max-age or Expires.
    /// Zero: keep it, but revalidate (If-None-Match / If-Modified-Since) every time.
    public var defaultTTL: Double
    /// Keep answers for good and never ask again, whatever the server says (geocoding results).
    public var keepForever: Bool
    /// Recognises an answer that means "no more requests today" (e.g. Open-Meteo's daily limit); returns
    /// the service's message. Such an answer stops every further request to that host for the run.
    public var limitAnswer: (@Sendable (HTTPResponse) -> String?)?
    /// Asked while waiting for an answer and between retries: true stops the waiting (Ctrl-C during a slow answer or
    /// a long Retry-After).
    public var isCancelled: (@Sendable () -> Bool)?
    /// When the server cannot answer, a cached copy older than this many seconds is not used: the request
    /// fails, saying how old the copy is. Nil: a copy of any age stands in.
    public var maxStale: Double?
    /// False: the answer is neither looked up in the cache nor kept there (API pages holding private data that are
    /// read once, such as calendar events; the request then always goes to the server).
    public var usesCache = true

    public init(defaultTTL: Double = 3600, keepForever: Bool = false, limitAnswer: (@Sendable (HTTPResponse) -> String?)? = nil,
                isCancelled: (@Sendable () -> Bool)? = nil, maxStale: Double? = nil) {
        self.maxStale = maxStale
        self.defaultTTL = defaultTTL
        self.keepForever = keepForever
        self.limitAnswer = limitAnswer
        self.isCancelled = isCancelled
    }
}
