import CalHash
import Pipeline

/// One cached answer. Its body is in `body`, or (for downloads such as feeds) in a file of the cache's
/// bodies folder named by `bodyFile`, so large bodies never pass through memory or the database. The body's
/// length and SHA-256 are stored with it and checked on every read: a damaged body is never served.
package struct CacheEntry: Sendable, Hashable {
    /// The URL, redacted (no credentials).
    package var url: String
    package var status: Int
    package var body: [UInt8]
    /// The body's file name in `HTTPCache.bodiesFolder`, when the body is kept as a file.
    package var bodyFile: String?
    package var contentType: String?
    package var etag: String?
    package var lastModified: String?
    /// When it was stored and until when it is fresh (seconds since 1970, the client's clock).
    package var storedAt: Double
    package var freshUntil: Double
    package var bodyLength: Int64
    /// Hex SHA-256 of the body.
    package var bodySHA256: String

    package init(url: String, status: Int, body: [UInt8], bodyFile: String? = nil, contentType: String?, etag: String?, lastModified: String?,
                storedAt: Double, freshUntil: Double, bodyLength: Int64? = nil, bodySHA256: String? = nil) {
        self.url = url
        self.status = status
        self.body = body
        self.bodyFile = bodyFile
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.storedAt = storedAt
        self.freshUntil = freshUntil
        self.bodyLength = bodyLength ?? Int64(body.count)
        self.bodySHA256 = bodySHA256 ?? SHA256.hex(of: body)
    }

    package func isFresh(at now: Double) -> Bool { now < freshUntil }

    /// The answer as stored (with an empty body when the body is a file).
    var response: HTTPResponse {
        var headers: [String: String] = [:]
        if let contentType { headers["content-type"] = contentType }
        if let etag { headers["etag"] = etag }
        if let lastModified { headers["last-modified"] = lastModified }
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}
