import Foundation
import Pipeline

/// Feeds over HTTP: `"url"` inputs of every source come through here. A feed's answer is kept in the cache
/// (its body as a file, streamed to disk, never held in memory) and revalidated on every run (ETag /
/// Last-Modified), so an unchanged calendar is not downloaded again, unless the server gave it a freshness
/// lifetime (max-age / Expires).
extension HTTPFetcher: RemoteFetcher {
    public func fetch(url: String, context: RunContext) throws -> RemoteBody {
        let cancellation = context.cancellation
        let policy = CachePolicy(defaultTTL: 0, isCancelled: { cancellation.cancelledReason != nil })
        let (result, path) = try download(url, policy: policy)
        guard result.response.isSuccess else {
            throw FetchError.status(url: url, code: result.response.status, message: result.response.bodyPreview)
        }
        var stale = false
        if case .stale = result.origin { stale = true }
        // A cached answer's Date is when it was stored (CacheEntry.response): its age for the `sources` list.
        let age = result.origin.isFromCache
            ? result.response.header("date").flatMap(HTTPDate.parse).map { max(0, Int64(Date().timeIntervalSince1970) - $0) } : nil
        return RemoteBody(path: path, fromCache: result.origin.isFromCache, stale: stale, ageSeconds: age)
    }
}
