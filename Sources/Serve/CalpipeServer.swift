import CalpipeKit
import Foundation
import Hummingbird
import Logging
import NIOCore
import Pipeline

/// What `calpipe serve` was asked to do.
package struct ServeOptions: Sendable {
    package var pipelineFiles: [String]
    package var host: String
    package var port: Int
    /// Seconds between runs of a pipeline whose file has no `serve.refresh`.
    package var defaultRefresh: Double
    package var environment: [String: String]

    package init(pipelineFiles: [String], host: String, port: Int, defaultRefresh: Double, environment: [String: String]) {
        self.pipelineFiles = pipelineFiles
        self.host = host
        self.port = port
        self.defaultRefresh = defaultRefresh
        self.environment = environment
    }
}

/// `calpipe serve`: loads every pipeline (a pipeline that cannot be served stops it before it listens), then
/// runs each on its own refresh interval and answers HTTP until SIGTERM or SIGINT, when it stops accepting,
/// finishes the answers under way, cancels the runs under way (they roll back) and returns.
package enum CalpipeServer {
    package static func run(_ options: ServeOptions, log: @escaping @Sendable (String) -> Void) async throws {
        let pipelines = try load(options)
        let board = FeedBoard()
        let metrics = ServeMetrics(board: board)
        let refreshers = pipelines.map { PipelineRefresher(pipeline: $0, board: board, metrics: metrics, environment: options.environment, log: log) }
        var logger = Logger(label: "calpipe-serve")
        logger.logLevel = .critical  // calpipe says what happens itself, in its own words
        let app = Application(
            responder: FeedResponder(pipelines: pipelines, board: board, metrics: metrics, environment: options.environment),
            configuration: ApplicationConfiguration(address: .hostname(options.host, port: options.port), serverName: "calpipe"),
            services: refreshers,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                let host = options.host.contains(":") ? "[\(options.host)]" : options.host
                log("listening on http://\(host):\(port)/ (" + pipelines.map { p in
                    (p.outputs.map { "/" + $0.route } + (p.database == nil ? [] : ["/\(p.name)/days"])).joined(separator: ", ")
                }.joined(separator: "; ") + ")")
            },
            logger: logger
        )
        try await app.runService()
        log("stopped")
    }

    /// Every pipeline, loaded and checked: a file with problems, two pipelines of one name, or one with nothing to
    /// serve or no token throw (exit 2), all problems at once.
    static func load(_ options: ServeOptions) throws -> [ServedPipeline] {
        var served: [ServedPipeline] = []
        var problems: [CalpipeError] = []
        let loader = PipelineLoader.standard(environment: options.environment)
        for file in options.pipelineFiles {
            do {
                let pipeline = try ServedPipeline(file: file, definition: try loader.load(file: file), defaultRefresh: options.defaultRefresh)
                if let other = served.first(where: { $0.name == pipeline.name }) {
                    problems.append(CalpipeError.config(file: file, path: "name", "\"\(pipeline.name)\" is also the name of \(other.file); each served "
                                                        + "pipeline needs its own (its paths are /NAME.ics, ...): give one a \"name\""))
                }
                served.append(pipeline)
            } catch let errors as ConfigErrors {
                problems.append(contentsOf: errors.issues)
            } catch {
                problems.append(CalpipeError(error))
            }
        }
        if !problems.isEmpty { throw ConfigErrors(problems) }
        return served
    }
}
