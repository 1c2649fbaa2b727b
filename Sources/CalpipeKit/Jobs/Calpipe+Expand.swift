import Pipeline

extension Calpipe {
    /// The occurrences of `events` inside the window [`from`, `to`) in `timeZone`: recurring events expanded
    /// (RRULE, RDATE, EXDATE, overrides), single events kept when they meet the window.
    /// `from`/`to`: `YYYY-MM-DD`, `today`, `today+Nd`; `timeZone`: an IANA name (nil: `$TZ`, then the system zone).
    public static func occurrences(of events: [Event], from: String, to: String, timeZone: String? = nil,
                                   settings: Settings = Settings()) async throws -> [Occurrence] {
        try await collect(values: events, conversion: Conversion(input: ValuesSource.type, from: from, to: to, timeZone: timeZone),
                          needs: .occurrences, settings: settings).occurrences
    }

    /// Runs `conversion` with `events` as its source into memory.
    static func collect(values events: [Event], conversion: Conversion, needs: BatchContent, days: Bool = false,
                        weather: Weather? = nil, settings: Settings) async throws -> Batch {
        var conversion = conversion
        conversion.valuesInput = true
        var settings = settings
        settings.registry.register(ValuesSource.descriptor(events))
        return try await collect(conversion, needs: needs, days: days, weather: weather, settings: settings)
    }
}
