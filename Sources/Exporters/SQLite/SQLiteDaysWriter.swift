import CalSQLite
import Pipeline

/// Writes the `days` and `meta` tables (migration 4, `SQLiteSchema+Days.swift`) inside the sink's run
/// transaction, just before it commits. The sink hands it every batch: it keeps the forecast stage's day
/// headers (a few values per day) and, without a window, which days had entries.
///
/// Rows are upserts that change nothing when nothing changed (so a re-run on the same input leaves `days` as
/// it was); days outside this run's window are left alone, like the other tables' rows.
package final class SQLiteDaysWriter {
    package init() {}

    private var weather: [CivilDate: DayWeather] = [:]
    private var entryDays = Set<CivilDate>()

    package func note(_ batch: Batch, window: Window?) {
        for header in batch.agendaDays {
            if let w = header.weather { weather[header.date] = w }
            if window == nil { entryDays.insert(header.date) }
        }
        if window == nil {
            for entry in batch.days { entryDays.insert(entry.day) }
        }
    }

    /// The days of this run: the window's, else the days with entries or weather.
    func days(window: Window?) -> [CivilDate] {
        if let window { return (window.from.daysSinceEpoch..<window.to.daysSinceEpoch).map(CivilDate.init(daysSinceEpoch:)) }
        return entryDays.sorted()
    }

    func write(into db: Database, runID: Int64, context: RunContext) throws {
        let env = context.environment
        let upsert = try db.prepare("""
            INSERT INTO days (date, weekday, weekday_short, weather_status, weather_reason, provider, place, latitude, longitude,
                              weather_code, icon, summary, temperature_max, temperature_min, precipitation_probability,
                              precipitation_amount, wind_speed_max, units, fetched_at, updated_run)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
            ON CONFLICT (date) DO UPDATE SET
                weekday = ?2, weekday_short = ?3, weather_status = ?4, weather_reason = ?5, provider = ?6, place = ?7,
                latitude = ?8, longitude = ?9, weather_code = ?10, icon = ?11, summary = ?12, temperature_max = ?13,
                temperature_min = ?14, precipitation_probability = ?15, precipitation_amount = ?16, wind_speed_max = ?17,
                units = ?18, fetched_at = ?19, updated_run = ?20
            WHERE (weekday, weekday_short, weather_status, weather_reason, provider, place, latitude, longitude, weather_code,
                   icon, summary, temperature_max, temperature_min, precipitation_probability, precipitation_amount,
                   wind_speed_max, units, fetched_at)
                IS NOT (?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)
            """)
        for values in dayRows(runID: runID, context: context) { try upsert.run(values) }
        try db.execute("""
            INSERT INTO meta (id, pipeline, timezone, window_from, window_to, locale, generated_at, schema_version)
            VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT (id) DO UPDATE SET pipeline = ?1, timezone = ?2, window_from = ?3, window_to = ?4, locale = ?5,
                generated_at = ?6, schema_version = ?7
            WHERE (pipeline, timezone, window_from, window_to, locale, generated_at, schema_version) IS NOT (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            """, arguments: [
                .text(env.name), .text(env.zone.identifier), text(env.window?.from.iso8601), text(env.window?.to.iso8601),
                .text(env.locale), .text(CivilDateTime(secondsSinceEpoch: env.now).iso8601 + "Z"),
                .integer(Int64(SQLiteSchema.currentVersion)),
            ])
    }

    /// The `days` rows of this run, in date order: the columns of the upsert above (`date` ... `updated_run`).
    package func dayRows(runID: Int64, context: RunContext) -> [[SQLiteValue]] {
        let env = context.environment
        let names = WeekdayNames(locale: env.locale)
        return days(window: env.window).map { day in
            let w = weather[day]
            let f = w?.forecast
            return [
                .text(day.iso8601), .text(names.name(of: day)), .text(names.shortName(of: day)),
                text(w.map { $0.isAvailable ? "forecast" : "missing" }), text(w?.reason), text(f?.provider), text(w?.placeName),
                real(w?.place?.latitude), real(w?.place?.longitude), f?.weatherCode.map { .integer(Int64($0)) } ?? .null,
                text(f?.icon), text(f?.summary), real(f?.temperatureMax), real(f?.temperatureMin), real(f?.precipitationProbability),
                real(f?.precipitationAmount), real(f?.windSpeedMax), text(f?.units),
                text(f?.fetchedAt.map { CivilDateTime(secondsSinceEpoch: $0).iso8601 + "Z" }), .integer(runID),
            ]
        }
    }

    private func text(_ s: String?) -> SQLiteValue { s.map(SQLiteValue.text) ?? .null }
    private func real(_ d: Double?) -> SQLiteValue { d.map(SQLiteValue.real) ?? .null }
}
