import Pipeline

/// Feeds over HTTP: `"url"` inputs of every source come through here. A feed's answer is kept in the cache
/// (its body as a file, streamed to disk, never held in memory) and revalidated on every run (ETag /
/// Last-Modified), so an unchanged calendar is not downloaded again, unless the server gave it a freshness
/// lifetime (max-age / Expires). Any answer but 2xx fails the source; 401 and 403 at once, without retries
/// and without falling back on a cached copy (the login is wrong, not the network).
extension HTTPFetcher: RemoteFetcher {
    package func fetch(url: String, access: RemoteAccess, context: RunContext) throws -> RemoteBody {
        let cancellation = context.cancellation
        let policy = CachePolicy(defaultTTL: 0, isCancelled: { cancellation.cancelledReason != nil }, maxStale: access.maxStale)
        let result: FetchResult
        do {
            result = try send(.get(url, credentials: access.credentials), policy: policy, into: .file)
        } catch let error as FetchError {
            for message in takeNotes() { context.warn(message) }
            switch error {
            case .unavailable, .offline, .status, .invalidURL: throw error
            default: throw FetchError.unavailable(error, cache: "no cached copy to fall back on")
            }
        }
        for message in takeNotes() { context.warn(message) }
        let status = result.response.status
        guard result.response.isSuccess else {
            let message: String
            switch status {
            case 401: message = "unauthorized: the server wants credentials or refused them (check headers, bearer_token, username/password or .netrc)"
            case 403: message = "forbidden: the credentials are not allowed to read this feed"
            default: message = result.response.bodyPreview
            }
            throw FetchError.status(url: result.url, code: status, message: message)
        }
        let origin: RemoteBody.Origin
        var staleReason: String?
        switch result.origin {
        case .network: origin = .downloaded
        case .cache: origin = .cached
        case .revalidated: origin = .revalidated
        case .stale: origin = .stale; staleReason = result.staleReason
        }
        return RemoteBody(path: result.bodyPath ?? "", origin: origin, age: result.age, staleReason: staleReason, etag: result.etag,
                          lastModified: result.lastModified, length: result.bodyLength, sha256: result.bodySHA256)
    }
}
