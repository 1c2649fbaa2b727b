import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension ServedFile {
    /// The answer to a GET or HEAD of these bytes: 304 when the client's copy is current, else the bytes (gzip when
    /// accepted), with the headers made when the file was, plus `extra` (staleness) when there are any.
    func answer(_ request: Request, extra: HTTPFields = [:]) -> Response {
        let gzip = gzipped != nil && Conditional.acceptsGzip(request.headers[.acceptEncoding])
        let form = gzip ? 1 : 0
        if Conditional.notModified(request.headers, etag: etag, gzipETag: gzipETag, lastModified: lastModified) {
            return Response(status: .notModified, headers: Self.adding(extra, to: notModifiedHeaders[form]))
        }
        var headers = Self.adding(extra, to: okHeaders[form])
        let body = gzip ? gzipped! : self.body
        if request.method == .head {
            headers[.contentLength] = String(body.readableBytes)
            return Response(status: .ok, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    private static func adding(_ extra: HTTPFields, to headers: HTTPFields) -> HTTPFields {
        if extra.isEmpty { return headers }
        var all = headers
        all.append(contentsOf: extra)
        return all
    }
}
