import CalHash
import CompressNIO
import Foundation
import HTTPTypes
import NIOCore

/// One published output held in memory, as it is answered: the bytes, their gzip form (made once, when the file
/// is published, not per request), a strong ETag from their SHA-256, the time they last changed, and the headers
/// of each answer (200 and 304, plain and gzip) made once too: a request copies them and adds nothing but the
/// staleness headers, when the data is stale.
struct ServedFile: Sendable {
    let body: ByteBuffer
    /// nil when gzip does not make it smaller (or was not asked for).
    let gzipped: ByteBuffer?
    /// `"sha256-prefix"`; the gzip form's is `"sha256-prefix-gz"` (a different representation, RFC 9110 8.8.3).
    let etag: String
    let gzipETag: String
    let contentType: String
    /// nil: no Last-Modified sent or compared (the days API, whose document also changes when "today" does).
    let lastModified: Date?
    /// The headers of a 200 and of a 304, for the plain bytes ([0]) and the gzip form ([1]).
    let okHeaders: [HTTPFields]
    let notModifiedHeaders: [HTTPFields]

    /// `compress`: make the gzip form (a feed: once per version; the days API: when the request accepts it).
    init(bytes: [UInt8], contentType: String, lastModified: Date?, cacheControl: String, compress: Bool = true) {
        var buffer = ByteBuffer(bytes: bytes)
        body = buffer
        etag = "\"" + String(SHA256.hex(of: bytes).prefix(32)) + "\""
        gzipETag = String(etag.dropLast()) + "-gz\""
        self.contentType = contentType
        // Whole seconds: HTTP dates have no fractions, and If-Modified-Since compares what was sent.
        self.lastModified = lastModified.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
        let packed = compress ? try? buffer.compress(with: .gzip()) : nil
        gzipped = packed.flatMap { $0.readableBytes < bytes.count ? $0 : nil }

        var ok: [HTTPFields] = [], notModified: [HTTPFields] = []
        for gzip in [false, true] {
            var headers = HTTPFields()
            headers[.eTag] = gzip ? gzipETag : etag
            if let modified = self.lastModified { headers[.lastModified] = HTTPDate.string(modified) }
            headers[.vary] = "Accept-Encoding"
            headers[.cacheControl] = cacheControl
            notModified.append(headers)
            headers[.contentType] = contentType
            if gzip { headers[.contentEncoding] = "gzip" }
            ok.append(headers)
        }
        okHeaders = ok
        notModifiedHeaders = notModified
    }

    /// The same bytes, published again: keeps the earlier time they changed, so revalidation keeps answering 304.
    func sameContent(as other: ServedFile?) -> Bool { other?.etag == etag }
}
