#if Postgres
import Pipeline

extension PostgresSink {
    /// The `postgres` sink's options (docs/postgres.md).
    package struct Options: OptionConfig {
        var connection: String?
        var password: Secret?
        var schema = "calpipe"
        var sslMode = "prefer"
        var sslRootCert: OptionPath?
        var keepRemoved = false
        var sourceText = false

        package init() {}

        package static let options = OptionSpec<Options> {
            Key("connection", \.connection, .string,
                "a postgres:// URL or libpq settings (host=... port=... dbname=... user=...); unset parts come from PGHOST, PGPORT, PGUSER, PGDATABASE")
            Key("password", \.password, .secret, "the password (else the URL's, else PGPASSWORD); write \"${DB_PASSWORD}\", never the password itself; never shown")
            Key("schema", \.schema, .string, "the schema holding the tables; created when missing, upgraded in place")
            Key("sslmode", \.sslMode, .oneOf(PostgresSettings.sslModes), "TLS, as libpq's sslmode")
            Key("sslrootcert", \.sslRootCert, .path, "the CA certificates (PEM) that verify-ca and verify-full check the server against (default: the system's)")
            Key("keep_removed", \.keepRemoved, .boolean, "keep rows that left a feed and mark them (removed_run) instead of deleting them")
            Key("source_text", \.sourceText, .boolean, "also store each event's original text in events.source_text")
        }
    }
}
#endif
