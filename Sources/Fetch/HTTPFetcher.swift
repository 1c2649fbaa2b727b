import Foundation

/// The HTTP client every network source shares: a persistent cache (see `HTTPCache`), conditional
/// revalidation, retries with Retry-After and jittered backoff inside a time budget, one request at a time
/// per host, a per-host rate limit, an identifying User-Agent, and the stale cached copy when the server
/// cannot answer. Synchronous: the pipeline calls it from its own thread.
public final class HTTPFetcher: @unchecked Sendable {
    public let settings: HTTPSettings
    /// The cache file this client uses.
    public let cachePath: String
    private let transport: HTTPTransport
    private let gate: HostGate
    private let lock = NSLock()
    private var cache: HTTPCache?
    private var cacheOpenFailed: String?
    private var bodyFolder: URL?
    private var bodyCounter = 0

    /// - Parameters:
    ///   - cachePath: the SQLite cache file; nil: `HTTPCache.defaultPath(environment:)`
    ///     (`$CALPIPE_CACHE`, else `$XDG_CACHE_HOME/calpipe/http-cache.sqlite`, else `~/.cache/calpipe/http-cache.sqlite`).
    ///   - environment: where the default path's variables are read.
    ///   - settings: timeouts, retry budget, rate limit, User-Agent.
    public init(cachePath: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
                settings: HTTPSettings = HTTPSettings()) {
        self.settings = settings
        self.cachePath = cachePath ?? HTTPCache.defaultPath(environment: environment)
        transport = HTTPTransport(settings: settings)
        gate = HostGate(requestsPerSecond: settings.requestsPerSecond)
    }

    deinit {
        if let bodyFolder { try? FileManager.default.removeItem(at: bodyFolder) }
    }

    /// Why the cache could not be opened (the client then works without one), if it could not.
    public var cacheProblem: String? {
        lock.lock()
        defer { lock.unlock() }
        return cacheOpenFailed
    }

    private func withCache<T>(_ body: (HTTPCache) throws -> T?) -> T? {
        lock.lock()
        defer { lock.unlock() }
        if cache == nil, cacheOpenFailed == nil {
            do {
                let opened = try HTTPCache(path: cachePath)
                try opened.prune(now: settings.clock().timeIntervalSince1970, keepSeconds: settings.keepStaleFor)
                cache = opened
            } catch {
                cacheOpenFailed = "cannot open the HTTP cache \(cachePath): \(error)"
            }
        }
        guard let cache else { return nil }
        return try? body(cache)
    }

    private var now: Double { settings.clock().timeIntervalSince1970 }
    private var uptime: Double { ProcessInfo.processInfo.systemUptime }

    /// Fetches a URL through the cache, with the body in memory (forecasts, geocoding). Returns any final
    /// answer (2xx, or 4xx for the caller to read); throws `FetchError` when no answer and no cached copy
    /// could be had.
    public func get(_ url: String, policy: CachePolicy = CachePolicy()) throws -> FetchResult {
        let resolved = try resolve(url, policy: policy, toFile: false)
        var response = resolved.response
        if let file = resolved.file {
            response.body = [UInt8](try Data(contentsOf: file))
            if resolved.fileIsTemporary { try? FileManager.default.removeItem(at: file) }
        }
        return FetchResult(response: response, origin: resolved.origin, url: url)
    }

    /// Fetches a URL through the cache with the body in a file this client owns (feeds): the body never
    /// passes through memory. The file stays until the client goes away.
    public func download(_ url: String, policy: CachePolicy = CachePolicy()) throws -> (result: FetchResult, path: String) {
        let resolved = try resolve(url, policy: policy, toFile: true)
        let result = FetchResult(response: resolved.response, origin: resolved.origin, url: url)
        let suffix = Self.suffix(of: url)
        guard let file = resolved.file else { return (result, try writeBody(resolved.response.body, suffix: suffix)) }
        return (result, try keep(file, move: resolved.fileIsTemporary, suffix: suffix))
    }

    /// What `resolve` found: the answer, and its body's file when the body is not in `response.body`.
    private struct Resolved {
        var response: HTTPResponse
        var origin: FetchOrigin
        var file: URL?
        /// True for a downloaded file that is not in the cache (the caller disposes of it).
        var fileIsTemporary = false
    }

    private func cachedBody(_ entry: CacheEntry) -> URL? {
        guard let name = entry.bodyFile else { return nil }
        return withCache { $0.bodyURL(name) }
    }

    private func resolve(_ url: String, policy: CachePolicy, toFile: Bool) throws -> Resolved {
        guard let normalized = NormalizedURL(url), let requestURL = URL(string: url) else { throw FetchError.invalidURL(url) }
        let key = normalized.text
        let cached = withCache { try $0.entry(forKey: key) }
        if let cached, cached.isFresh(at: now) {
            return Resolved(response: cached.response, origin: .cache, file: cachedBody(cached))
        }
        if let reason = gate.blockReason(normalized.authority) {
            let error = FetchError.limitReached(host: normalized.authority, message: reason)
            return try fallBack(cached, error)
        }
        var headers = ["User-Agent": settings.userAgent]
        if let etag = cached?.etag { headers["If-None-Match"] = etag }
        if let lastModified = cached?.lastModified { headers["If-Modified-Since"] = lastModified }

        let deadline = uptime + settings.retryBudget
        let backoff = BackoffSchedule(base: settings.backoffBase, maximum: settings.maximumBackoff)
        var attempt = 0
        var failure: FetchError
        while true {
            attempt += 1
            let outcome: Result<(response: HTTPResponse, file: URL?), FetchError>
            do {
                outcome = .success(try gate.withTurn(normalized.authority) {
                    toFile ? try transport.download(requestURL, headers: headers) : (try transport.get(requestURL, headers: headers), nil)
                })
            } catch let error as FetchError {
                outcome = .failure(error)
            } catch {
                outcome = .failure(.transport(url: url, message: "\(error)"))
            }
            var wait = backoff.wait(forRetry: attempt - 1, random: Double.random(in: 0...1))
            switch outcome {
            case .success(let exchange):
                var response = exchange.response
                if response.isSuccess {
                    return store(response, file: exchange.file, url: url, key: key, policy: policy)
                }
                if let file = exchange.file {
                    // Error pages are small; keep their start for messages and drop the file.
                    response.body = Self.head(of: file, limit: 65_536)
                    try? FileManager.default.removeItem(at: file)
                }
                if response.status == 304, let cached {
                    return Resolved(response: revalidate(cached, with: response, key: key, policy: policy), origin: .revalidated, file: cachedBody(cached))
                }
                if let message = policy.limitAnswer?(response) {
                    gate.block(normalized.authority, reason: message)
                    return try fallBack(cached, .limitReached(host: normalized.authority, message: message))
                }
                guard [429, 500, 502, 503, 504].contains(response.status) else {
                    // A definitive answer (400 with a reason, 404, ...): the caller reads it.
                    return Resolved(response: response, origin: .network)
                }
                failure = .status(url: url, code: response.status, message: response.bodyPreview)
                if response.status == 429 || response.status == 503, let retryAfter = RetryAfterText.seconds(response.header("retry-after"), now: now) {
                    if uptime + retryAfter > deadline {
                        // Asked to wait longer than we may: stop asking this host for the rest of the run.
                        let message = "asked to retry after \(DurationText.seconds(retryAfter.rounded(.up))), beyond the retry budget"
                        gate.block(normalized.authority, reason: message)
                        return try fallBack(cached, .limitReached(host: normalized.authority, message: message))
                    }
                    wait = retryAfter
                }
            case .failure(let error):
                failure = error
            }
            if attempt >= settings.maximumAttempts || uptime + wait > deadline { break }
            if !pause(wait, policy: policy) {
                failure = .interrupted(url: url)
                break
            }
        }
        return try fallBack(cached, failure)
    }

    /// Sleeps, in short slices so a cancelled run does not wait out a long Retry-After. False when cancelled.
    private func pause(_ seconds: Double, policy: CachePolicy) -> Bool {
        let end = uptime + seconds
        while true {
            if policy.isCancelled?() == true { return false }
            let left = end - uptime
            if left <= 0 { return true }
            Thread.sleep(forTimeInterval: min(left, 0.1))
        }
    }

    private func fallBack(_ cached: CacheEntry?, _ failure: FetchError) throws -> Resolved {
        if let cached { return Resolved(response: cached.response, origin: .stale(failure.description), file: cachedBody(cached)) }
        throw failure
    }

    static func head(of file: URL, limit: Int) -> [UInt8] {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return [] }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: limit)) ?? Data())
    }

    private func freshUntil(_ response: HTTPResponse, policy: CachePolicy) -> (storable: Bool, until: Double) {
        if policy.keepForever { return (true, Double.greatestFiniteMagnitude) }
        let freshness = Freshness.of(response, defaultTTL: policy.defaultTTL, now: now)
        return (freshness.storable, freshness.freshUntil)
    }

    /// Keeps a 2xx answer when its headers allow; a downloaded body moves into the cache's bodies folder.
    private func store(_ response: HTTPResponse, file: URL?, url: String, key: String, policy: CachePolicy) -> Resolved {
        let (storable, until) = freshUntil(response, policy: policy)
        let temporary = Resolved(response: response, origin: .network, file: file, fileIsTemporary: file != nil)
        guard storable else {
            _ = withCache { try $0.remove(key: key) }
            return temporary
        }
        var entry = CacheEntry(url: url, status: response.status, body: response.body, contentType: response.header("content-type"),
                               etag: response.header("etag"), lastModified: response.header("last-modified"), storedAt: now, freshUntil: until)
        let stored: URL?? = withCache { cache -> URL? in
            if let file { entry.bodyFile = try cache.adopt(file) }
            do {
                try cache.store(entry, forKey: key)
            } catch {
                // Not stored: give the download back to the caller.
                if let file, let name = entry.bodyFile { try? FileManager.default.moveItem(at: cache.bodyURL(name), to: file) }
                throw error
            }
            return entry.bodyFile.map(cache.bodyURL)
        }
        guard let stored else { return temporary }  // no cache: the download stays where it is
        return Resolved(response: response, origin: .network, file: stored)
    }

    /// A 304: the cached body is still right; its freshness (and validators, when sent) come from the new answer.
    private func revalidate(_ cached: CacheEntry, with response: HTTPResponse, key: String, policy: CachePolicy) -> HTTPResponse {
        var entry = cached
        var merged = response
        if merged.header("content-type") == nil, let type = cached.contentType { merged.headers["content-type"] = type }
        let (storable, until) = freshUntil(merged, policy: policy)
        entry.etag = response.header("etag") ?? cached.etag
        entry.lastModified = response.header("last-modified") ?? cached.lastModified
        entry.storedAt = now
        entry.freshUntil = until
        if storable { _ = withCache { try $0.store(entry, forKey: key) } } else { _ = withCache { try $0.remove(key: key) } }
        return entry.response
    }

    private func ownedFolder() throws -> URL {
        if let bodyFolder { return bodyFolder }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-fetch-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        bodyFolder = folder
        return folder
    }

    /// Gives the caller its own name for a body file: a hard link to a cached body (no copy; another run
    /// replacing the cache entry does not pull it away), or the temporary download itself.
    private func keep(_ file: URL, move: Bool, suffix: String) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        bodyCounter += 1
        let target = try ownedFolder().appendingPathComponent("body-\(bodyCounter)\(suffix)")
        if move {
            try FileManager.default.moveItem(at: file, to: target)
        } else if link(file.path, target.path) != 0 {
            try FileManager.default.copyItem(at: file, to: target)
        }
        return target.path
    }

    /// Keeps the URL's extension (".ics", ".json", ...) on the local file, for readers that look at it.
    static func suffix(of url: String) -> String {
        guard let path = URLComponents(string: url)?.path else { return "" }
        let ext = (path as NSString).pathExtension
        return ext.isEmpty || ext.count > 8 ? "" : "." + ext
    }

    /// Drops a URL's cached answer (e.g. one that turned out to be unreadable), so the next run asks again.
    public func forget(_ url: String) {
        guard let key = NormalizedURL(url)?.text else { return }
        _ = withCache { try $0.remove(key: key) }
    }

    /// Writes a body to a file this client owns (removed when the client goes away).
    func writeBody(_ body: [UInt8], suffix: String) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        bodyCounter += 1
        let file = try ownedFolder().appendingPathComponent("body-\(bodyCounter)\(suffix)")
        try Data(body).write(to: file, options: .atomic)
        return file.path
    }
}
