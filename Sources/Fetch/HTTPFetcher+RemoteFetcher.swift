import Foundation
import Pipeline

/// Feeds over HTTP: `"url"` inputs of every source come through here. A feed's answer is kept in the cache
/// and revalidated on every run (ETag / Last-Modified), so an unchanged calendar is not downloaded again,
/// unless the server gave it a freshness lifetime (max-age / Expires).
extension HTTPFetcher: RemoteFetcher {
    public func fetch(url: String, context: RunContext) throws -> RemoteBody {
        let result = try get(url, policy: CachePolicy(defaultTTL: 0))
        guard result.response.isSuccess else {
            throw FetchError.status(url: url, code: result.response.status, message: result.response.bodyPreview)
        }
        let path = try writeBody(result.response.body, suffix: Self.suffix(of: url))
        var stale = false
        if case .stale = result.origin { stale = true }
        return RemoteBody(path: path, fromCache: result.origin.isFromCache, stale: stale)
    }

    /// Keeps the URL's extension (".ics", ".json", ...) on the local file, for readers that look at it.
    static func suffix(of url: String) -> String {
        guard let path = URLComponents(string: url)?.path else { return "" }
        let ext = (path as NSString).pathExtension
        return ext.isEmpty || ext.count > 8 ? "" : "." + ext
    }
}
