import Foundation
import Pipeline

extension Calpipe {
    /// Weather for the days: a forecast stage (docs/forecast.md).
    public struct Weather: Sendable {
        /// The stage's options (`provider`, `path`, `units`, ...) as in a pipeline file.
        public var options: JSONObject
        /// Where the days are when no entry says (the pipeline's `location`).
        public var location: Coordinate?

        /// Forecasts read from a saved Open-Meteo answer (`provider: file`), for `location` unless an entry has a place.
        public static func file(_ path: String, location: Coordinate? = nil) -> Weather {
            Weather(options: JSONObject([("provider", .string("file")), ("path", .string(path))]), location: location)
        }

        /// Forecasts from `provider` (`open-meteo`, `metno`, ...) with further stage options.
        public static func provider(_ provider: String, options: JSONObject = JSONObject(), location: Coordinate? = nil) -> Weather {
            var all = JSONObject([("provider", .string(provider))])
            for (key, value) in options.members { all[key] = value }
            return Weather(options: all, location: location)
        }

        /// A forecast stage with these options.
        public init(options: JSONObject, location: Coordinate? = nil) {
            self.options = options
            self.location = location
        }

        var stage: JSONValue {
            var stage = JSONObject([("type", .string("forecast"))])
            for (key, value) in options.members { stage[key] = value }
            return .object(stage)
        }
    }

    /// The days document of the file at `path` (any supported format, as ``readEvents(fromFile:format:settings:)``
    /// reads it) in the window [`from`, `to`) and `timeZone`: the same bytes as
    /// `calpipe convert path -o - --output-format json --shape days --from from --to to --tz timeZone`.
    public static func days(ofFile path: String, format: String? = nil, from: String? = nil, to: String? = nil, timeZone: String? = nil,
                            weather: Weather? = nil, settings: Settings = Settings()) async throws -> DaysDocument {
        try await days(Conversion(input: path, format: format, from: from, to: to, timeZone: timeZone), weather: weather, settings: settings)
    }

    /// The days document of `events`, expanded in the window [`from`, `to`) and split into days in `timeZone`,
    /// with `weather` when given.
    public static func days(of events: [Event], from: String, to: String, timeZone: String? = nil, weather: Weather? = nil,
                            settings: Settings = Settings()) async throws -> DaysDocument {
        var settings = settings
        settings.registry.register(ValuesSource.descriptor(events))
        var conversion = Conversion(input: ValuesSource.type, from: from, to: to, timeZone: timeZone)
        conversion.valuesInput = true
        return try await days(conversion, weather: weather, settings: settings)
    }

    /// The day entries themselves (expanded, split, with their forecasts), for a program that works on the model.
    public static func dayEntries(of events: [Event], from: String, to: String, timeZone: String? = nil, weather: Weather? = nil,
                                  settings: Settings = Settings()) async throws -> [DayEntry] {
        try await collect(values: events, conversion: Conversion(input: ValuesSource.type, from: from, to: to, timeZone: timeZone),
                          needs: .days, days: true, weather: weather, settings: settings).days
    }

    private static func days(_ conversion: Conversion, weather: Weather?, settings: Settings) async throws -> DaysDocument {
        let directory = try ScratchDirectory()
        let output = directory.url.appendingPathComponent("days.json").path
        let sink = JSONObject([("type", .string("json")), ("path", .string(output)), ("shape", .string("days"))])
        var pipeline = try conversion.pipeline(sink: sink, days: true, registry: settings.registry)
        pipeline.add(weather)
        try await run(pipeline, name: conversion.pipelineName, settings: settings)
        return try DaysDocument(jsonData: Data(contentsOf: URL(fileURLWithPath: output)))
    }
}

extension JSONValue {
    /// Adds the forecast stage of `weather` after the pipeline's stages, and its location as the pipeline's.
    mutating func add(_ weather: Calpipe.Weather?) {
        guard let weather, case .object(var root) = self else { return }
        root["stages"] = .array((root["stages"]?.arrayValue ?? []) + [weather.stage])
        if let location = weather.location {
            root["location"] = .object(JSONObject([("latitude", .number(location.latitude)), ("longitude", .number(location.longitude))]))
        }
        self = .object(root)
    }
}
