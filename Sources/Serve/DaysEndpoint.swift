import Exporters
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Pipeline

/// `GET /NAME/days?from=2026-12-01&to=2026-12-08` (or `?day=today&days=7`): the days document of the range,
/// read from the pipeline's sqlite sink's database: the bytes `calpipe query DB --json` prints for the same
/// range (`AgendaDatabase`), with an ETag (304 on revalidation) and gzip. A bad parameter gets a 400 with one
/// line of JSON naming it.
struct DaysEndpoint: Sendable {
    let environment: [String: String]

    static let parameters = ["from", "to", "day", "days", "token"]

    func respond(database: String, request: Request, stale: HTTPFields) -> Response {
        var query = AgendaQuery()
        for (key, value) in request.uri.queryParameters {
            let value = String(value)
            switch key {
            case "from": query.from = value
            case "to": query.to = value
            case "day": query.day = value
            case "days":
                guard let n = Int(value) else {
                    return Self.badParameter("days", "days: expected a number of days from 1 to 3660, got \"\(value)\"")
                }
                query.days = n
            case "token": break
            default:
                let name = String(key)
                return Self.badParameter(name, "unknown parameter \"\(name)\" (expected one of: \(Self.parameters.joined(separator: ", ")))"
                                         + Suggestion.hint(for: name, in: Self.parameters))
            }
        }
        let body: [UInt8]
        do {
            do { try query.check() } catch { return Self.badParameter(error.parameter, error.message { $0 }) }
            let agenda = try AgendaDatabase(path: database, environment: environment)
            let range: AgendaQuery.Range
            do { range = try query.range(today: agenda.today, stored: agenda.meta?.window) } catch { return Self.badParameter(error.parameter, error.message { $0 }) }
            body = Array(try agenda.daysDocument(range).utf8)
        } catch {
            // The database is missing before the first run, or busy past its timeout: try again soon.
            return FeedResponder.text(.serviceUnavailable, "the days cannot be read now (\(CalpipeError(error).message))", extra: [.retryAfter: "5"])
        }
        // No Last-Modified: the document also changes when "today" does, which no file time says. Made per request,
        // so compressed only for a client that takes gzip.
        return ServedFile(bytes: body, contentType: "application/json", lastModified: nil, cacheControl: "private, no-cache",
                          compress: Conditional.acceptsGzip(request.headers[.acceptEncoding])).answer(request, extra: stale)
    }

    /// 400 with `{"error": "...", "parameter": "from"}` on one line.
    static func badParameter(_ parameter: String, _ message: String) -> Response {
        let document = JSONValue.object(JSONObject([("error", .string(message)), ("parameter", .string(parameter))]))
        return Response(status: .badRequest, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: JSONWriter(pretty: false).string(document) + "\n")))
    }
}
