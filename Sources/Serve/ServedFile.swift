import CalHash
import CompressNIO
import Foundation
import NIOCore

/// One published output held in memory, as it is answered: the bytes, their gzip form (made once, when the file
/// is published, not per request), a strong ETag from their SHA-256 and the time they last changed.
struct ServedFile: Sendable {
    let body: ByteBuffer
    /// nil when gzip does not make it smaller.
    let gzipped: ByteBuffer?
    /// `"sha256-prefix"`; the gzip form's is `"sha256-prefix-gz"` (a different representation, RFC 9110 8.8.3).
    let etag: String
    let contentType: String
    let lastModified: Date

    init(bytes: [UInt8], contentType: String, lastModified: Date) {
        var buffer = ByteBuffer(bytes: bytes)
        body = buffer
        etag = "\"" + String(SHA256.hex(of: bytes).prefix(32)) + "\""
        self.contentType = contentType
        // Whole seconds: HTTP dates have no fractions, and If-Modified-Since compares what was sent.
        self.lastModified = Date(timeIntervalSince1970: lastModified.timeIntervalSince1970.rounded(.down))
        let packed = try? buffer.compress(with: .gzip())
        gzipped = packed.flatMap { $0.readableBytes < bytes.count ? $0 : nil }
    }

    /// The same bytes, published again: keeps the earlier time they changed, so revalidation keeps answering 304.
    func sameContent(as other: ServedFile?) -> Bool { other?.etag == etag }

    var gzipETag: String { String(etag.dropLast()) + "-gz\"" }
}
