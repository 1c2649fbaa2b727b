import Foundation
import Pipeline

extension Calpipe {
    /// Writes `events` to the file at `path` in `format` (a sink type such as `ics`, `json`, `sqlite`, `html`;
    /// nil: the path's extension's), through a temporary file renamed over it. `options`: the sink's options as
    /// in a pipeline file (`{"shape": "days"}`, ...); the json sink writes the events (`shape: events`) unless told.
    public static func write(_ events: [Event], toFile path: String, format: String? = nil, options: JSONObject = JSONObject(),
                             settings: Settings = Settings()) async throws {
        let type = try format ?? Conversion.sinkType(ofPath: path, registry: settings.registry)
        var sink = JSONObject([("type", .string(type)), ("path", .string(path))])
        if type == "json" { sink["shape"] = .string("events") }
        for (key, value) in options.members { sink[key] = value }
        let days = PipelineLoader.standard(registry: settings.registry, environment: settings.environment)
            .needs(ofSink: type, options: sink, baseDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))?.contains(.days) == true
        var settings = settings
        settings.registry.register(ValuesSource.descriptor(events))
        var conversion = Conversion(input: ValuesSource.type)
        conversion.valuesInput = true
        try await run(conversion.pipeline(sink: sink, days: days, registry: settings.registry), name: "agenda", settings: settings)
    }

    /// `events` in `format` (a sink type such as `ics` or `json`) as bytes; see ``write(_:toFile:format:options:settings:)``.
    public static func data(_ events: [Event], format: String, options: JSONObject = JSONObject(), settings: Settings = Settings()) async throws -> Data {
        let directory = try ScratchDirectory()
        let path = directory.url.appendingPathComponent("agenda").path
        try await write(events, toFile: path, format: format, options: options, settings: settings)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }
}
