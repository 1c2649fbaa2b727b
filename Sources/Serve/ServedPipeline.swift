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
    /// `Authorization: Bearer`, compared in constant time (and without copying: every feed request asks).
    func admits(queryToken: Substring?, authorization: String?) -> Bool {
        if settings.isPublic { return true }
        guard let token = settings.token else { return false }
        if let queryToken { return Self.equal(queryToken.utf8, token.utf8) }
        guard let authorization else { return false }
        let scheme = "bearer ".utf8
        let header = authorization.utf8
        // The scheme's letters in any case (0x20 sets a letter's lower-case bit and leaves the space as it is).
        guard header.count > scheme.count, zip(header, scheme).allSatisfy({ $0 | 0x20 == $1 }) else { return false }
        let credentials = header.dropFirst(scheme.count).drop { $0 == UInt8(ascii: " ") }
        var end = credentials.endIndex
        while end > credentials.startIndex, header[header.index(before: end)] == UInt8(ascii: " ") { end = header.index(before: end) }
        return Self.equal(credentials[..<end], token.utf8)
    }

    /// Byte-wise equality that looks at every byte of `expected` whatever differs first.
    static func equal<Given: Collection<UInt8>>(_ given: Given, _ expected: String.UTF8View) -> Bool {
        var difference = given.count ^ expected.count
        var g = given.makeIterator()
        for byte in expected { difference |= Int((g.next() ?? 0) ^ byte) }
        return difference == 0
    }
}
