#if Postgres
import Pipeline
import PostgresNIO

/// Errors of the server, the connection or TLS, as one line in calpipe's words: `postgres HOST:PORT/DB: REASON;
/// nothing was written`. The server's own message is never shown (it may quote data or settings); its SQLSTATE
/// names the case.
enum PostgresProblem {
    static func error(_ error: Error, label: String, settings: PostgresSettings?) -> CalpipeError {
        if let calpipe = error as? CalpipeError { return calpipe }
        return CalpipeError("\(label): \(reason(error, settings: settings)); nothing was written")
    }

    static func reason(_ error: Error, settings: PostgresSettings?) -> String {
        let user = settings.map { "\"\($0.user)\"" } ?? "the user"
        let database = settings.map { "\"\($0.database ?? $0.user)\"" } ?? "the database"
        guard let psql = error as? PSQLError else {
            if error is NIOSSLError { return "the TLS handshake failed (check sslmode and sslrootcert)" }
            if error is CancellationError { return "interrupted" }
            return "the connection failed (\(type(of: error)))"
        }
        if let state = psql.serverInfo?[.sqlState] {
            switch state {
            case "28P01": return "password authentication failed for user \(user) (check the password or PGPASSWORD)"
            case "28000": return "the server does not let user \(user) in (pg_hba.conf)"
            case "3D000": return "the database \(database) does not exist"
            case "42501": return "permission denied (user \(user) may not create or write the schema's tables)"
            case "53300": return "the server has too many connections"
            case "57P01", "57P02", "57P03": return "the server is shutting down or starting up"
            case "40P01": return "a deadlock with another writer (run again)"
            case "55P03": return "a lock is held by another writer"
            case "53100": return "the server's disk is full"
            case "22021": return "a text holds a byte PostgreSQL cannot store (NUL)"
            default: return "the server refused a statement (SQLSTATE \(state))"
            }
        }
        switch psql.code {
        case .connectionError:
            if let settings {
                return settings.socketPath.map { "cannot connect to the server's socket \($0) (is it running?)" }
                    ?? "cannot connect to \(settings.host):\(settings.port) (is the server running and accepting TCP connections?)"
            }
            return "cannot connect to the server"
        case .sslUnsupported: return "the server does not offer TLS (sslmode \(settings?.sslMode ?? "require"))"
        case .authMechanismRequiresPassword: return "the server asks user \(user) for a password and none is set (password, PGPASSWORD or the URL)"
        case .unsupportedAuthMechanism: return "the server asks for an authentication method calpipe does not speak"
        case .serverClosedConnection, .uncleanShutdown: return "the server closed the connection"
        case .queryCancelled: return "interrupted"
        case .saslError: return "password authentication failed for user \(user) (check the password or PGPASSWORD)"
        default: return "the connection failed (\(psql.code))"
        }
    }
}
#endif
