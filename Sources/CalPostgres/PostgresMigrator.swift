#if Postgres
import Pipeline

/// Brings the schema to `PostgresSchema.currentVersion` in a transaction of its own, before the run's, under an
/// advisory lock on the schema: two workers starting on an empty database do not both create the tables, and a
/// failed upgrade leaves the schema as it was. Refuses a schema with tables calpipe did not make, or of a newer
/// version, untouched.
struct PostgresMigrator {
    let link: PostgresLink
    let settings: PostgresSettings
    let context: RunContext

    static func quoted(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    func migrate() throws {
        let schema = settings.schema
        try link.execute("SET search_path TO \(Self.quoted(schema))")
        try link.execute("BEGIN")
        do {
            try link.execute("SELECT pg_advisory_xact_lock($1)", [.integer(PostgresSourceLocks.key("schema", schema))])
            let tables = try link.rows("SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", [.text(schema)])
                .compactMap { $0.first ?? nil }
            var version = 0
            if tables.contains("meta") {
                version = Int(try link.integer("SELECT coalesce(max(schema_version), 0)::text FROM meta"))
            } else if !tables.isEmpty {
                let shown = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", ..." : "")
                throw CalpipeError("\(settings.label): schema \"\(schema)\" was not made by calpipe (it has the tables \(shown)); nothing was changed; use another schema (option schema)")
            }
            if version > PostgresSchema.currentVersion {
                throw CalpipeError("\(settings.label): schema \"\(schema)\" has version \(version), newer than this calpipe's \(PostgresSchema.currentVersion); nothing was changed; upgrade calpipe")
            }
            if version < PostgresSchema.currentVersion {
                try link.execute("CREATE SCHEMA IF NOT EXISTS \(Self.quoted(schema))")
                for migration in PostgresSchema.migrations[version...] {
                    for statement in migration { try link.execute(statement) }
                }
                try Self.writeMeta(link, context: context)
            }
            try link.execute("COMMIT")
        } catch {
            try? link.execute("ROLLBACK")
            throw error
        }
    }

    /// The one `meta` row: the pipeline, zone, window, locale, the run's time and the schema version (changed only
    /// when a value differs).
    static func writeMeta(_ link: PostgresLink, context: RunContext) throws {
        let env = context.environment
        try link.execute("""
            INSERT INTO meta AS m (id, pipeline, timezone, window_from, window_to, locale, generated_at, schema_version)
            VALUES (1, $1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (id) DO UPDATE SET (pipeline, timezone, window_from, window_to, locale, generated_at, schema_version) =
                (EXCLUDED.pipeline, EXCLUDED.timezone, EXCLUDED.window_from, EXCLUDED.window_to, EXCLUDED.locale, EXCLUDED.generated_at,
                 EXCLUDED.schema_version)
            WHERE (m.pipeline, m.timezone, m.window_from, m.window_to, m.locale, m.generated_at, m.schema_version) IS DISTINCT FROM
                (EXCLUDED.pipeline, EXCLUDED.timezone, EXCLUDED.window_from, EXCLUDED.window_to, EXCLUDED.locale, EXCLUDED.generated_at,
                 EXCLUDED.schema_version)
            """, [.text(env.name), .text(env.zone.identifier), .optional(env.window?.from.iso8601), .optional(env.window?.to.iso8601),
                  .text(env.locale), .text(CivilDateTime(secondsSinceEpoch: env.now).iso8601 + "Z"),
                  .integer(Int64(PostgresSchema.currentVersion))])
    }
}
#endif
