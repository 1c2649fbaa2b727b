import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Pipeline

/// Answers every request of `calpipe serve`: the feeds at `/NAME.ics|json|html`, the days API at `/NAME/days`,
/// `/healthz` and `/metrics`. One switch on the path, no router: a feed request is a dictionary look-up and a
/// few headers over bytes already in memory.
struct FeedResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let routes: [String: (pipeline: ServedPipeline, output: ServedPipeline.Output)]
    let pipelines: [String: ServedPipeline]
    let board: FeedBoard
    let metrics: ServeMetrics
    let days: DaysEndpoint

    init(pipelines: [ServedPipeline], board: FeedBoard, metrics: ServeMetrics, environment: [String: String]) {
        var routes: [String: (pipeline: ServedPipeline, output: ServedPipeline.Output)] = [:]
        for pipeline in pipelines { for output in pipeline.outputs { routes[output.route] = (pipeline, output) } }
        self.routes = routes
        self.pipelines = Dictionary(pipelines.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.board = board
        self.metrics = metrics
        days = DaysEndpoint(environment: environment)
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            return Self.text(.methodNotAllowed, "only GET and HEAD are answered", extra: [.allow: "GET, HEAD"])
        }
        let path = request.uri.path
        switch path {
        case "/healthz": return health()
        case "/metrics": return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                                         body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.text())))
        default: break
        }
        let name = path.dropFirst()
        if let route = routes[String(name)] {
            guard admits(route.pipeline, request) else { return Self.unauthorized(route.pipeline) }
            return feed(route.output, pipeline: route.pipeline, request: request)
        }
        if name.hasSuffix("/days"), let pipeline = pipelines[String(name.dropLast(5))], let database = pipeline.database {
            guard admits(pipeline, request) else { return Self.unauthorized(pipeline) }
            return days.respond(database: database, request: request, stale: staleHeaders(pipeline))
        }
        // Not listing what is served: the names of feeds are for those given their URLs.
        return Self.text(.notFound, "no feed at \(path)")
    }

    func admits(_ pipeline: ServedPipeline, _ request: Request) -> Bool {
        pipeline.admits(queryToken: request.uri.queryParameters["token"], authorization: request.headers[.authorization])
    }

    /// A published output: 304 when the client's copy is current, else the bytes (gzip when accepted).
    func feed(_ output: ServedPipeline.Output, pipeline: ServedPipeline, request: Request) -> Response {
        guard let file = board.file(output.route) else {
            return Self.text(.serviceUnavailable, "/\(output.route) is not published yet: the first run of \(pipeline.name) is under way", extra: [.retryAfter: "5"])
        }
        return file.answer(request, extra: staleHeaders(pipeline))
    }

    /// `X-Calpipe-Age` (seconds the data lags behind its upstreams) and a `Warning: 110`, when it does.
    func staleHeaders(_ pipeline: ServedPipeline) -> HTTPFields {
        var headers = HTTPFields()
        if let age = board.staleAge(pipeline.name, now: Date()) {
            headers[Self.ageHeader] = String(age)
            headers[Self.warningHeader] = "110 calpipe \"Response is Stale\""
        }
        return headers
    }

    /// 200 with each pipeline's state as JSON: the process is up and answering.
    func health() -> Response {
        let now = Date()
        var members: [(key: String, value: JSONValue)] = []
        for name in pipelines.keys.sorted() {
            let status = board.status(name)
            var o = JSONObject()
            o["runs"] = .number(Double(status.runs))
            o["failures"] = .number(Double(status.failures))
            o["last_success"] = status.lastSuccess.map { .string(HTTPDate.string($0)) } ?? .null
            o["last_error"] = status.lastError.map { .string($0) } ?? .null
            o["stale_seconds"] = status.staleAge(now: now).map { .number(Double($0)) } ?? .null
            members.append((name, .object(o)))
        }
        let document = JSONValue.object(JSONObject([("status", .string("ok")), ("pipelines", .object(JSONObject(members)))]))
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: JSONWriter(pretty: false).string(document) + "\n")))
    }

    static let ageHeader = HTTPField.Name("X-Calpipe-Age")!
    static let warningHeader = HTTPField.Name("Warning")!

    static func unauthorized(_ pipeline: ServedPipeline) -> Response {
        text(.unauthorized, "\(pipeline.name): a token is required (?token=... or Authorization: Bearer ...)",
             extra: [.wwwAuthenticate: "Bearer realm=\"calpipe\""])
    }

    static func text(_ status: HTTPResponse.Status, _ message: String, extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "calpipe serve: " + message + "\n")))
    }
}
