import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension ServedFile {
    /// The answer to a GET or HEAD of these bytes: 304 when the client's copy is current, else the bytes (gzip when
    /// accepted), with `headers` (caching, staleness) added. `dated`: send and compare Last-Modified.
    func answer(_ request: Request, headers extra: HTTPFields, dated: Bool = true) -> Response {
        var headers = extra
        let gzip = gzipped != nil && Conditional.acceptsGzip(request.headers[.acceptEncoding])
        headers[.eTag] = gzip ? gzipETag : etag
        if dated { headers[.lastModified] = HTTPDate.string(lastModified) }
        headers[.vary] = "Accept-Encoding"
        if Conditional.notModified(request.headers, etags: [etag, gzipETag], lastModified: dated ? lastModified : nil) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        if gzip { headers[.contentEncoding] = "gzip" }
        let body = gzip ? gzipped! : self.body
        if request.method == .head {
            headers[.contentLength] = String(body.readableBytes)
            return Response(status: .ok, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
