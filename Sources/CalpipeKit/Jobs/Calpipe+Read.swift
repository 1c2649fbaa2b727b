import Foundation
import Pipeline

extension Calpipe {
    /// Reads the events of the file at `path` in any supported format: `format` (a source type such as `ics` or
    /// `json`), else the one its first bytes tell (as `calpipe convert` does), else its extension's.
    public static func readEvents(fromFile path: String, format: String? = nil, settings: Settings = Settings()) async throws -> [Event] {
        try await collect(Conversion(input: path, format: format), needs: .events, settings: settings).events
    }

    /// Reads the events of `data`, in the format its first bytes tell, or `format`.
    public static func readEvents(from data: Data, format: String? = nil, settings: Settings = Settings()) async throws -> [Event] {
        let directory = try ScratchDirectory()
        let path = directory.url.appendingPathComponent("agenda").path
        try data.write(to: URL(fileURLWithPath: path))
        return try await readEvents(fromFile: path, format: format, settings: settings)
    }

    /// Reads the events at `url`: a file URL as a file, an `http`, `https` or `webcal` URL through calpipe's HTTP
    /// client and cache (its format: `format`, else the URL's extension).
    public static func readEvents(from url: URL, format: String? = nil, settings: Settings = Settings()) async throws -> [Event] {
        if url.isFileURL { return try await readEvents(fromFile: url.path, format: format, settings: settings) }
        return try await collect(Conversion(input: url.absoluteString, format: format), needs: .events, settings: settings).events
    }

    /// Runs `conversion` into memory: what reaches a sink that `needs` it.
    static func collect(_ conversion: Conversion, needs: BatchContent, days: Bool = false, weather: Weather? = nil,
                        settings: Settings) async throws -> Batch {
        let box = CollectingSink.Box()
        var pipeline = try conversion.pipeline(sink: JSONObject([("type", .string(CollectingSink.type))]), days: days, registry: settings.registry)
        pipeline.add(weather)
        try await run(pipeline, name: conversion.pipelineName, settings: settings, extra: [CollectingSink.descriptor(needs: needs, into: box)])
        return box.committed
    }
}
