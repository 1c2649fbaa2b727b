import CalSQLite
import Foundation
import CalHash
import Pipeline
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP client every network source and API shares: any method, headers, body and credentials
/// (`HTTPRequest`); a persistent cache for GET (see `HTTPCache`) with conditional revalidation and bodies
/// checked against their stored SHA-256; retries with Retry-After and jittered backoff inside a time budget;
/// one request at a time per host, a per-host rate limit, an identifying User-Agent; and the stale cached copy
/// (within `CachePolicy.maxStale`) when the server cannot answer. Synchronous: the pipeline calls it from its
/// own thread. Credentials never appear in its messages, errors or cache keys (`URLRedaction`).
public final class HTTPFetcher: Sendable {
    /// Timeouts, retries, rate limit and User-Agent of this client.
    public let settings: HTTPSettings
    /// The cache file this client uses.
    public let cachePath: String
    private let transport: HTTPTransport
    /// The per-host turns, shared with every client made from this one (`sibling`).
    package let gate: HostGate
    private let environment: [String: String]
    /// The open cache file, shared with the siblings that use the same file.
    private let cacheHandle: CacheHandle
    /// What the client changes as it works, behind one lock.
    private struct State {
        var notes: [String] = []
        var netrc: NetrcFile??
        var bodyFolder: URL?
        var bodyCounter = 0
    }

    private let state = Locked(State())

    /// - Parameters:
    ///   - cachePath: the SQLite cache file; nil: `HTTPCache.defaultPath(environment:)`
    ///     (`$CALPIPE_CACHE`, else `$XDG_CACHE_HOME/calpipe/http-cache.sqlite`, else `~/.cache/calpipe/http-cache.sqlite`).
    ///   - environment: where the default path's variables, `$NETRC` / `$HOME` (for `.netrc`) and
    ///     `CALPIPE_OFFLINE=1` (the same as `settings.offline`) are read.
    ///   - settings: timeouts, retry budget, rate limit, User-Agent.
    ///
    /// A client of its own takes turns at each host only with itself; a plugin of a pipeline asks the pipeline
    /// for one instead (`PipelineEnvironment.httpClient(settings:)`), which shares the pipeline's turns.
    public convenience init(cachePath: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
                            settings: HTTPSettings = HTTPSettings()) {
        self.init(cachePath: cachePath, environment: environment, settings: settings, gate: HostGate())
    }

    /// A client taking part in `gate`'s per-host turns.
    package convenience init(cachePath: String?, environment: [String: String], settings: HTTPSettings, gate: HostGate) {
        let path = cachePath ?? HTTPCache.defaultPath(environment: environment)
        self.init(cacheHandle: CacheHandle(path: path), environment: environment, settings: settings, gate: gate)
    }

    private init(cacheHandle: CacheHandle, environment: [String: String], settings: HTTPSettings, gate: HostGate) {
        var settings = settings
        if environment["CALPIPE_OFFLINE"] == "1" { settings.offline = true }
        self.settings = settings
        self.environment = environment
        self.cacheHandle = cacheHandle
        cachePath = cacheHandle.path
        transport = HTTPTransport(settings: settings)
        self.gate = gate
    }

    /// Another client for the same process: its own settings (timeouts, retries, rate limit, User-Agent) and
    /// cache file (nil: this one's), taking turns at each host with this client and every other sibling, so
    /// requests from the feeds and the forecast stage to one host are spaced as if one client sent them all.
    /// With this client's cache file, the siblings share its connection too.
    public func sibling(cachePath: String? = nil, settings: HTTPSettings) -> HTTPFetcher {
        let handle = cachePath.map { $0 == self.cachePath ? cacheHandle : CacheHandle(path: $0) } ?? cacheHandle
        return HTTPFetcher(cacheHandle: handle, environment: environment, settings: settings, gate: gate)
    }

    /// Seconds between the starts of two requests to one host (`HTTPSettings.requestsPerSecond`).
    private var minimumInterval: Double { settings.requestsPerSecond > 0 ? 1 / settings.requestsPerSecond : 0 }

    deinit {
        if let bodyFolder = state.withLock({ $0.bodyFolder }) { try? FileManager.default.removeItem(at: bodyFolder) }
    }

    /// Why the cache could not be opened (the client then works without one), or that it was damaged and
    /// rebuilt, if either happened.
    public var cacheProblem: String? {
        cacheHandle.problem
    }

    /// Messages about the cache not yet shown (a damaged cache rebuilt, a damaged body downloaded again); each
    /// is returned once.
    public func takeNotes() -> [String] {
        state.withLock { state in
            defer { state.notes = [] }
            return state.notes
        }
    }

    private func note(_ text: String) {
        state.withLock { $0.notes.append(text) }
    }

    private func withCache<T>(_ body: (HTTPCache) throws -> T?) -> T? {
        cacheHandle.with(settings: settings, note: note, body)
    }

    private var now: Double { settings.clock().timeIntervalSince1970 }
    private var uptime: Double { ProcessInfo.processInfo.systemUptime }

    // MARK: - Requests

    /// Sends a request. GET and HEAD go through the cache (`policy`); other methods are sent on every call.
    /// 429, 5xx, timeouts and broken connections are retried for idempotent methods (`HTTPRequest.isIdempotent`);
    /// a POST or PATCH is sent again only when the server asks with Retry-After (429/503) or the connection was
    /// never made, else it fails with `FetchError.notRetried`.
    /// Returns any final answer (2xx, or 4xx for the caller to read, 401/403 at once without retries); throws
    /// `FetchError` when no answer and no usable cached copy could be had.
    public func send(_ request: HTTPRequest, policy: CachePolicy = CachePolicy(), into destination: BodyDestination = .memory) throws -> FetchResult {
        let prepared = try prepare(request)
        let toFile = destination == .file
        let resolved = try resolve(request, prepared, policy: policy, toFile: toFile)
        var response = resolved.response
        var result = FetchResult(response: response, origin: resolved.origin, url: prepared.label, storedAt: resolved.storedAt,
                                 age: resolved.storedAt.map { max(0, now - $0) } ?? 0, bodyLength: resolved.length, bodySHA256: resolved.sha256)
        result.staleReason = resolved.staleReason
        do {
            if toFile {
                let suffix = Self.suffix(of: prepared.requestURL.absoluteString)
                if let file = resolved.file {
                    result.bodyPath = try keep(file, move: resolved.fileIsTemporary, suffix: suffix)
                } else {
                    result.bodyPath = try writeBody(response.body, suffix: suffix)
                }
            } else if let file = resolved.file {
                response.body = [UInt8](try Data(contentsOf: file))
                if resolved.fileIsTemporary { try? FileManager.default.removeItem(at: file) }
                result.response = response
            }
        } catch {
            // The answer came, but its temporary file could not be kept or read (a full disk): said for the URL.
            throw FetchError.transport(url: prepared.label, message: "cannot store the download (\(CalpipeError(error).message))")
        }
        return result
    }

    /// Fetches a URL through the cache, with the body in memory (forecasts, geocoding).
    public func get(_ url: String, policy: CachePolicy = CachePolicy()) throws -> FetchResult {
        try send(.get(url), policy: policy)
    }

    /// Fetches a URL through the cache with the body in a file this client owns (feeds): the body never
    /// passes through memory. The file stays until the client goes away.
    public func download(_ url: String, policy: CachePolicy = CachePolicy()) throws -> (result: FetchResult, path: String) {
        let result = try send(.get(url), policy: policy, into: .file)
        return (result, result.bodyPath ?? "")
    }

    /// A request made ready to send: credentials applied, the URL without user information, and the texts
    /// (label, cache key) that may be shown or stored.
    struct Prepared {
        var requestURL: URL
        /// The URL redacted, for messages.
        var label: String
        /// The cache key: the normalised, redacted URL, plus a digest of the credentials when there are any
        /// (two logins to one address are two entries, and no secret is written).
        var key: String
        var authority: String
        var headers: [String: String]
        var sensitiveHeaders: Set<String>
        var secrets: [String]
    }

    func prepare(_ request: HTTPRequest) throws -> Prepared {
        let label = URLRedaction.redact(request.url)
        guard var components = URLComponents(string: request.url.trimmingCharacters(in: .whitespaces)) else { throw FetchError.invalidURL(label) }
        let urlUser = components.user
        let urlPassword = components.password
        components.user = nil
        components.password = nil
        guard let stripped = components.string, let normalized = NormalizedURL(stripped), let requestURL = URL(string: stripped) else {
            throw FetchError.invalidURL(label)
        }
        let credentials = request.credentials
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name] = value }
        var sensitive = Set<String>()
        var secrets: [String] = []
        for (name, value) in credentials.headers {
            headers[name] = value
            sensitive.insert(name.lowercased())
            secrets.append(value)
        }
        let hasAuthorization = headers.keys.contains { $0.lowercased() == "authorization" }
        if let token = credentials.bearerToken {
            headers["Authorization"] = "Bearer " + token
            secrets.append(token)
        } else if let user = credentials.username {
            headers["Authorization"] = Self.basic(user, credentials.password ?? "")
            secrets.append(credentials.password ?? "")
        } else if let user = urlUser {
            let password = urlPassword ?? ""
            headers["Authorization"] = Self.basic(user, password)
            secrets.append(password)
        } else if credentials.useNetrc, !hasAuthorization, let entry = netrcEntry(normalized.host), let login = entry.login {
            headers["Authorization"] = Self.basic(login, entry.password ?? "")
            secrets.append(entry.password ?? "")
        }
        if headers["Authorization"] != nil { sensitive.insert("authorization") }
        for item in components.queryItems ?? [] where URLRedaction.isSecret(item.name) {
            if let value = item.value, !value.isEmpty { secrets.append(value) }
        }
        var key = URLRedaction.redact(normalized.text)
        let material = secrets.filter { !$0.isEmpty } + headers.filter { sensitive.contains($0.key.lowercased()) }.map { "\($0.key.lowercased())=\($0.value)" }.sorted()
        if !material.isEmpty {
            key += " auth:" + String(SHA256.hex(of: Array(material.joined(separator: "\u{0}").utf8)).prefix(16))
        }
        return Prepared(requestURL: requestURL, label: label, key: key, authority: normalized.authority, headers: headers,
                        sensitiveHeaders: sensitive, secrets: secrets.filter { !$0.isEmpty })
    }

    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data((user + ":" + password).utf8).base64EncodedString()
    }

    private func netrcEntry(_ host: String) -> NetrcFile.Entry? {
        let environment = environment
        return state.withLock { state in
            if state.netrc == nil { state.netrc = .some(NetrcFile.load(environment: environment)) }
            return state.netrc??.entry(for: host)
        }
    }

    /// What `resolve` found: the answer, and its body's file when the body is not in `response.body`.
    private struct Resolved {
        var response: HTTPResponse
        var origin: FetchOrigin
        var file: URL?
        /// True for a downloaded file that is not in the cache (the caller disposes of it).
        var fileIsTemporary = false
        var storedAt: Double?
        var length: Int64?
        var sha256: String?
        /// For `.stale`: why the server did not answer, without the URL.
        var staleReason: String?
    }

    private func cachedBody(_ entry: CacheEntry) -> URL? {
        guard let name = entry.bodyFile else { return nil }
        return withCache { $0.bodyURL(name) }
    }

    private func fromCache(_ entry: CacheEntry, _ origin: FetchOrigin) -> Resolved {
        Resolved(response: entry.response, origin: origin, file: cachedBody(entry), storedAt: entry.storedAt, length: entry.bodyLength, sha256: entry.bodySHA256)
    }

    private func resolve(_ request: HTTPRequest, _ prepared: Prepared, policy: CachePolicy, toFile: Bool) throws -> Resolved {
        let key = prepared.key
        let label = prepared.label
        var cached: CacheEntry?
        let cacheable = request.isCacheable && policy.usesCache
        if cacheable {
            switch withCache({ try $0.lookup(forKey: key) }) ?? .missing {
            case .valid(let entry): cached = entry
            case .damaged(let problem): note("\(label): \(problem); downloading it again")
            case .missing: break
            }
        }
        if settings.offline {
            guard cacheable, let cached else { throw FetchError.offline(url: label) }
            if cached.isFresh(at: now) { return fromCache(cached, .cache) }
            return try fallBack(cached, .transport(url: label, message: "not asked (--offline)"), policy: policy)
        }
        if let cached, cached.isFresh(at: now) { return fromCache(cached, .cache) }
        if let reason = gate.blockReason(prepared.authority) {
            return try fallBack(cached, .limitReached(host: prepared.authority, message: reason), policy: policy)
        }
        var headers = prepared.headers
        headers["User-Agent"] = headers["User-Agent"] ?? settings.userAgent
        if let etag = cached?.etag { headers["If-None-Match"] = etag }
        if let lastModified = cached?.lastModified { headers["If-Modified-Since"] = lastModified }
        var urlRequest = URLRequest(url: prepared.requestURL, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: max(settings.connectTimeout, settings.requestTimeout) + 1)
        urlRequest.httpMethod = request.method
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { urlRequest.setValue(value, forHTTPHeaderField: name) }
        var bodyFile: URL?
        if let path = request.bodyFile {
            bodyFile = URL(fileURLWithPath: path)
            do {
                _ = try FileManager.default.attributesOfItem(atPath: path)
                guard FileManager.default.isReadableFile(atPath: path) else { throw CocoaError(.fileReadNoPermission) }
            } catch {
                throw FetchError.transport(url: label, message: "cannot read the request body \(path) (\(CalpipeError(error).message))")
            }
        } else if let body = request.body {
            urlRequest.httpBody = Data(body)
        }

        let deadline = uptime + settings.retryBudget
        let backoff = BackoffSchedule(base: settings.backoffBase, maximum: settings.maximumBackoff)
        var attempt = 0
        var connectFailures = 0
        var failure: FetchError
        while true {
            attempt += 1
            let outcome: Result<HTTPTransport.Exchange, FetchError>
            do {
                outcome = .success(try gate.withTurn(prepared.authority, minimumInterval: minimumInterval) {
                    try transport.send(urlRequest, bodyFile: bodyFile, toFile: toFile, sensitiveHeaders: prepared.sensitiveHeaders, label: label,
                                       isCancelled: policy.isCancelled)
                })
            } catch let error as FetchError {
                outcome = .failure(error)
            } catch {
                outcome = .failure(.transport(url: label, message: CalpipeError(error).message))
            }
            var wait = backoff.wait(forRetry: attempt - 1, random: Double.random(in: 0...1))
            switch outcome {
            case .success(let exchange):
                var response = exchange.response
                if response.isSuccess {
                    return store(response, exchange: exchange, label: label, key: key, policy: policy, cacheable: cacheable)
                }
                if response.status == 304, let cached {
                    return Resolved(response: revalidate(cached, with: response, key: key, policy: policy), origin: .revalidated, file: cachedBody(cached),
                                    storedAt: now, length: cached.bodyLength, sha256: cached.bodySHA256)
                }
                response.body = Array(URLRedaction.scrub(response.text, secrets: prepared.secrets).utf8)
                if let message = policy.limitAnswer?(response) {
                    gate.block(prepared.authority, reason: message)
                    return try fallBack(cached, .limitReached(host: prepared.authority, message: message), policy: policy)
                }
                guard [429, 500, 502, 503, 504].contains(response.status) else {
                    // A definitive answer (400 with a reason, 401/403 refused credentials, 404, ...): the caller reads it.
                    return Resolved(response: response, origin: .network)
                }
                failure = .status(url: label, code: response.status, message: response.bodyPreview)
                if response.status == 429 || response.status == 503, let retryAfter = RetryAfterText.seconds(response.header("retry-after"), now: now) {
                    if uptime + retryAfter > deadline {
                        // Asked to wait longer than we may: stop asking this host for the rest of the run.
                        let message = "asked to retry after \(DurationText.seconds(retryAfter.rounded(.up))), beyond the retry budget"
                        gate.block(prepared.authority, reason: message)
                        return try fallBack(cached, .limitReached(host: prepared.authority, message: message), policy: policy)
                    }
                    wait = retryAfter
                } else if !request.isIdempotent {
                    // A POST or PATCH may have been applied: sent again only when the server asks (Retry-After).
                    return try fallBack(cached, .notRetried(failure, method: request.method), policy: policy)
                }
            case .failure(let error):
                failure = error
                if !request.isIdempotent, !error.requestNeverSent {
                    // A timeout or a broken connection after the request left: it may have been applied.
                    return try fallBack(cached, .notRetried(error, method: request.method), policy: policy)
                }
                if error.isConnectFailure {
                    // The server was never reached: one more try after a short wait, not the whole budget.
                    connectFailures += 1
                    if connectFailures > settings.connectRetries { return try fallBack(cached, failure, policy: policy) }
                }
            }
            if attempt >= settings.maximumAttempts || uptime + wait > deadline { break }
            if !pause(wait, policy: policy) {
                failure = .interrupted(url: label)
                break
            }
        }
        return try fallBack(cached, failure, policy: policy)
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

    /// The cached copy when there is one young enough for `policy.maxStale`; else the failure, saying what
    /// became of the cache.
    private func fallBack(_ cached: CacheEntry?, _ failure: FetchError, policy: CachePolicy) throws -> Resolved {
        guard let cached else { throw failure }
        let age = max(0, now - cached.storedAt)
        if let maxStale = policy.maxStale, age > maxStale {
            throw FetchError.unavailable(failure, cache: "the cached copy is \(DurationOption.describe(age)) old, more than max_stale (\(DurationOption.describe(maxStale)))")
        }
        var resolved = fromCache(cached, .stale(failure.description))
        resolved.staleReason = failure.reason
        return resolved
    }

    private func freshUntil(_ response: HTTPResponse, policy: CachePolicy) -> (storable: Bool, until: Double) {
        if policy.keepForever { return (true, Double.greatestFiniteMagnitude) }
        let freshness = Freshness.of(response, defaultTTL: policy.defaultTTL, now: now)
        return (freshness.storable, freshness.freshUntil)
    }

    /// Keeps a 2xx answer when its headers allow; a downloaded body moves into the cache's bodies folder.
    private func store(_ response: HTTPResponse, exchange: HTTPTransport.Exchange, label: String, key: String, policy: CachePolicy, cacheable: Bool) -> Resolved {
        let file = exchange.file
        let temporary = Resolved(response: response, origin: .network, file: file, fileIsTemporary: file != nil, storedAt: nil,
                                 length: exchange.length, sha256: exchange.sha256)
        guard cacheable else { return temporary }
        let (storable, until) = freshUntil(response, policy: policy)
        guard storable else {
            _ = withCache { try $0.remove(key: key) }
            return temporary
        }
        var entry = CacheEntry(url: label, status: response.status, body: response.body, contentType: response.header("content-type"),
                               etag: response.header("etag"), lastModified: response.header("last-modified"), storedAt: now, freshUntil: until,
                               bodyLength: exchange.length, bodySHA256: exchange.sha256)
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
        return Resolved(response: response, origin: .network, file: stored, storedAt: nil, length: exchange.length, sha256: exchange.sha256)
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

    // MARK: - Body files

    /// A new file name in the folder of bodies this client owns (made on first use, removed with the client).
    private func newBodyFile(suffix: String) throws -> URL {
        try state.withLock { state in
            let folder: URL
            if let existing = state.bodyFolder {
                folder = existing
            } else {
                folder = FileManager.default.temporaryDirectory.appendingPathComponent("calpipe-fetch-\(getpid())-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                state.bodyFolder = folder
            }
            state.bodyCounter += 1
            return folder.appendingPathComponent("body-\(state.bodyCounter)\(suffix)")
        }
    }

    /// Gives the caller its own name for a body file: a hard link to a cached body (no copy; another run
    /// replacing the cache entry does not pull it away), or the temporary download itself.
    private func keep(_ file: URL, move: Bool, suffix: String) throws -> String {
        let target = try newBodyFile(suffix: suffix)
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
    public func forget(_ url: String, credentials: RemoteCredentials = RemoteCredentials(useNetrc: false)) {
        guard let key = try? prepare(HTTPRequest(url: url, credentials: credentials)).key else { return }
        _ = withCache { try $0.remove(key: key) }
    }

    /// Writes a body to a file this client owns (removed when the client goes away).
    func writeBody(_ body: [UInt8], suffix: String) throws -> String {
        let file = try newBodyFile(suffix: suffix)
        try Data(body).write(to: file, options: .atomic)
        return file.path
    }
}

extension FetchError {
    /// The server was never reached (refused, unknown host, no network, connect timeout).
    var isConnectFailure: Bool {
        switch self {
        case .transport(_, _, let connectFailure): return connectFailure
        case .connectTimeout: return true
        default: return false
        }
    }

    /// The connection was never made (refused, unknown host, no network), so the request did not leave: safe
    /// to send again whatever its method. A connect timeout is not: the request may have been sent.
    var requestNeverSent: Bool {
        if case .transport(_, _, let connectFailure) = self { return connectFailure }
        return false
    }
}
