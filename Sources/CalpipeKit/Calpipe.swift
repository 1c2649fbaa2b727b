import Foundation
import Pipeline

/// The common jobs in a few calls: read events in any format, expand them in a window, split them into days in
/// a zone, attach weather, write any format, run a pipeline, add plugins of your own.
///
/// Every job that reads or writes is `async` and stops when its task is cancelled (it then throws
/// `CalpipeError` with the kind `interrupted`, and writes nothing). Each runs the same pipeline as
/// `calpipe convert` with the same settings, so a program and the command give the same bytes.
///
/// ```swift
/// import CalpipeKit
///
/// let events = try await Calpipe.readEvents(fromFile: "team.ics")
/// let days = try await Calpipe.days(of: events, from: "2026-11-01", to: "2026-12-01", timeZone: "Europe/Berlin")
/// print(String(decoding: days.jsonData, as: UTF8.self))
/// ```
public enum Calpipe {
    /// The settings every job takes: the plugins it may use and the environment it reads (`TZ`, `CALPIPE_CACHE`,
    /// `CALPIPE_OFFLINE`, `SOURCE_DATE_EPOCH`, which fixes "now").
    public struct Settings: Sendable {
        /// The plugins; add yours with `register(_:)` on a copy of `PluginRegistry.standard`.
        public var registry: PluginRegistry
        /// The environment pipelines read.
        public var environment: [String: String]
        /// Fail (nothing written) when any record is rejected.
        public var strict: Bool
        /// Gets every message of the run (warnings, repairs), from any thread.
        public var logger: @Sendable (LogRecord) -> Void

        /// Settings with every standard plugin and the process's environment.
        public init(registry: PluginRegistry = .standard, environment: [String: String] = ProcessInfo.processInfo.environment,
                    strict: Bool = false, logger: @escaping @Sendable (LogRecord) -> Void = { _ in }) {
            self.registry = registry
            self.environment = environment
            self.strict = strict
            self.logger = logger
        }
    }

    /// Loads the pipeline `json` with `settings` (plus `extra` plugins) and runs it, cancelled by task cancellation.
    @discardableResult
    static func run(_ json: JSONValue, name: String, settings: Settings, extra: [SinkDescriptor] = []) async throws -> RunReport {
        var registry = settings.registry
        for descriptor in extra { registry.register(descriptor) }
        let loader = PipelineLoader.standard(registry: registry, environment: settings.environment)
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let pipeline = try loader.load(json: json, file: name, baseDirectory: cwd, defaultName: name)
        let context = RunContext(environment: pipeline.environment, strict: settings.strict, quiet: true, logger: settings.logger)
        return try await Runner().run(pipeline, context: context)
    }
}
