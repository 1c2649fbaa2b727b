import Exporters
import Foundation
import Pipeline

/// A pipeline as `calpipe serve` publishes it: its name, file, token and refresh interval, and the outputs of
/// its file sinks at their stable paths (`/NAME.ics`, `/NAME.json`, `/NAME.html`; the first sink of each type).
struct ServedPipeline: Sendable {
    struct Output: Sendable {
        /// "team.ics": the path without its leading slash.
        var route: String
        /// The file the sink writes.
        var path: String
        var contentType: String
    }

    let name: String
    let file: String
    let settings: ServeSettings
    /// Seconds between runs.
    let refresh: Double
    let outputs: [Output]
    /// The sqlite sink's database: `/NAME/days` reads it.
    let database: String?

    /// The sink types served, with their extension and content type.
    static let servedTypes: [(type: String, suffix: String, contentType: String)] = [
        ("ics", "ics", "text/calendar; charset=utf-8"),
        ("json", "json", "application/json"),
        ("html", "html", "text/html; charset=utf-8"),
    ]

    /// Reads what a loaded pipeline publishes. Throws a one-line error when it cannot be served: no token and
    /// not public, or no sink whose output can be served.
    init(file: String, definition: PipelineDefinition, defaultRefresh: Double) throws {
        name = definition.environment.name
        self.file = file
        settings = definition.serve
        refresh = definition.serve.refresh ?? defaultRefresh
        var outputs: [Output] = []
        var database: String?
        for (i, sink) in definition.sinks.enumerated() {
            guard let path = (sink as? any FileOutputSink)?.outputPath, path != "-", i < definition.sinkTypes.count else { continue }
            let type = definition.sinkTypes[i]
            if type == "sqlite" {
                if database == nil { database = path }
            } else if let served = Self.servedTypes.first(where: { $0.type == type }), !outputs.contains(where: { $0.contentType == served.contentType }) {
                outputs.append(Output(route: name + "." + served.suffix, path: path, contentType: served.contentType))
            }
        }
        self.outputs = outputs
        self.database = database
        if settings.token == nil && !settings.isPublic {
            throw CalpipeError.config(file: file, path: "serve",
                                      "no token (add \"serve\": {\"token\": \"${FEED_TOKEN}\"} to give subscribers one, or \"public\": true to serve it to anyone)")
        }
        if outputs.isEmpty && database == nil {
            throw CalpipeError.config(file: file, path: "sinks", "nothing to serve (expected an ics, json, html or sqlite sink writing a file)")
        }
    }

    /// Whether a request may read this pipeline's outputs: public, or its token given as `?token=` or
    /// `Authorization: Bearer`, compared in constant time.
    func admits(queryToken: String?, authorization: String?) -> Bool {
        if settings.isPublic { return true }
        guard let token = settings.token else { return false }
        var given = queryToken
        if given == nil, let authorization, authorization.lowercased().hasPrefix("bearer ") {
            given = String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        guard let given else { return false }
        let a = Array(given.utf8), b = Array(token.utf8)
        var difference = a.count ^ b.count
        for i in 0..<b.count { difference |= Int((i < a.count ? a[i] : 0) ^ b[i]) }
        return difference == 0
    }
}
