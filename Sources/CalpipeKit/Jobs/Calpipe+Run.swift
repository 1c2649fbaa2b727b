import Foundation
import Pipeline

extension Calpipe {
    /// Loads the pipeline file at `path` and runs it; its report. Cancelling the task stops the run: every sink
    /// rolls back and it throws.
    @discardableResult
    public static func run(file path: String, settings: Settings = Settings()) async throws -> RunReport {
        let loader = PipelineLoader.standard(registry: settings.registry, environment: settings.environment)
        return try await loader.run(file: path, strict: settings.strict, logger: settings.logger)
    }

    /// Runs the pipeline `json`, built in code with the keys of a pipeline file (`sources`, `stages`, `sinks`,
    /// `window`, `timezone`, ...); relative paths are read from the current directory.
    @discardableResult
    public static func run(pipeline json: JSONValue, name: String = "pipeline", settings: Settings = Settings()) async throws -> RunReport {
        try await run(json, name: name, settings: settings)
    }

    /// The standard plugins plus `sources`, `stages` and `sinks` of your own, for ``Settings/registry``.
    public static func registry(sources: [SourceDescriptor] = [], stages: [StageDescriptor] = [], sinks: [SinkDescriptor] = []) -> PluginRegistry {
        var registry = PluginRegistry.standard
        for descriptor in sources { registry.register(descriptor) }
        for descriptor in stages { registry.register(descriptor) }
        for descriptor in sinks { registry.register(descriptor) }
        return registry
    }
}
