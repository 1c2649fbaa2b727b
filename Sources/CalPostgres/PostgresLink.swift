#if Postgres
import Foundation
import Logging
import Pipeline
import PostgresNIO

/// One connection to the server, used from the sink's synchronous calls: each call starts the async work and
/// waits for it (the sink's methods run on the runner's or the sinks' thread, never on Swift's concurrency pool).
/// Errors come back as one line in calpipe's words (`PostgresProblem`); the server's own text never reaches a user.
final class PostgresLink: @unchecked Sendable {
    let connection: PostgresConnection
    let label: String
    private let logger: Logger

    private init(connection: PostgresConnection, label: String, logger: Logger) {
        self.connection = connection
        self.label = label
        self.logger = logger
    }

    /// Connects and sets the session's `search_path` to the schema (so COPY and every statement name tables alone).
    static func connect(_ settings: PostgresSettings) throws -> PostgresLink {
        let logger = Logger(label: "calpipe.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        let label = settings.label
        let configuration: PostgresConnection.Configuration
        do {
            configuration = try settings.configuration()
        } catch {
            throw CalpipeError("\(label): the TLS settings cannot be used (sslrootcert \(settings.sslRootCert ?? "none")); nothing was written")
        }
        let connection = try wait(label: label, settings: settings) {
            try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        }
        let link = PostgresLink(connection: connection, label: label, logger: logger)
        return link
    }

    /// Runs `work` and waits for it; errors become `PostgresProblem`'s one line.
    static func wait<T: Sendable>(label: String, settings: PostgresSettings? = nil, _ work: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        switch box.result! {
        case .success(let value): return value
        case .failure(let error): throw PostgresProblem.error(error, label: label, settings: settings)
        }
    }

    func wait<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection, Logger) async throws -> T) throws -> T {
        let connection = connection
        let logger = logger
        return try Self.wait(label: label) { try await work(connection, logger) }
    }

    /// Runs one statement (with `$1`... bound to `binds`), discarding rows.
    func execute(_ sql: String, _ binds: [PostgresBind] = []) throws {
        let query = Self.query(sql, binds)
        try wait { connection, logger in
            let rows = try await connection.query(query, logger: logger)
            for try await _ in rows {}
        }
    }

    /// Runs one statement and returns its rows as texts (NULL: nil); every column is cast to text by the caller's SQL
    /// or read as text.
    func rows(_ sql: String, _ binds: [PostgresBind] = []) throws -> [[String?]] {
        let query = Self.query(sql, binds)
        return try wait { connection, logger in
            var out: [[String?]] = []
            for try await row in try await connection.query(query, logger: logger) {
                out.append(try row.map { cell in try cell.decode(String?.self) })
            }
            return out
        }
    }

    /// The first column of the first row as an integer (0 when none).
    func integer(_ sql: String, _ binds: [PostgresBind] = []) throws -> Int64 {
        Int64(try rows(sql, binds).first?.first.flatMap { $0 } ?? "0") ?? 0
    }

    /// `COPY table (columns) FROM STDIN` in text format, sending `data` (rows made by `PostgresCopyText`).
    func copy(into table: String, columns: [String], data: ByteBuffer) throws {
        try wait { connection, logger in
            try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
                // In slices of 1 MiB: the server gets CopyData messages of a usual size.
                var rest = data
                while rest.readableBytes > 0, let chunk = rest.readSlice(length: min(rest.readableBytes, 1 << 20)) {
                    try await writer.write(chunk)
                }
            }
        }
    }

    func close() {
        let connection = connection
        _ = try? Self.wait(label: label) { try await connection.close() }
    }

    static func query(_ sql: String, _ binds: [PostgresBind]) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case .text(let s): bindings.append(s)
            case .integer(let n): bindings.append(n)
            case .null: bindings.appendNull()
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}

/// A parameter of a statement.
enum PostgresBind: Sendable {
    case text(String)
    case integer(Int64)
    case null

    static func optional(_ s: String?) -> PostgresBind { s.map(PostgresBind.text) ?? .null }
}

private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, Error>?
}
#endif
