#if Postgres
import Foundation
import Pipeline
import PostgresNIO

/// Where and how the postgres sink connects: a `postgres://` URL or libpq keyword settings (`host=... port=...
/// dbname=...`), each value after `${ENV}` (the loader expands it), falling back to libpq's variables (`PGHOST`,
/// `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE`, `PGSSLMODE`, `PGSSLROOTCERT`). The password is never part of a
/// label or message.
struct PostgresSettings: Sendable {
    var host = "localhost"
    var port = 5432
    var user = "postgres"
    var password: String?
    var database: String?
    /// libpq's `sslmode`: disable, allow, prefer (default), require, verify-ca, verify-full.
    var sslMode = "prefer"
    var sslRootCert: String?
    var schema = "calpipe"

    static let sslModes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    /// A host starting with "/" is the folder of a Unix socket (libpq's convention: `FOLDER/.s.PGSQL.PORT`).
    var socketPath: String? { host.hasPrefix("/") ? host + "/.s.PGSQL.\(port)" : nil }

    /// `postgres 127.0.0.1:5432/app` or `postgres /run/postgresql/app`: no user, no password.
    var label: String {
        let db = database ?? user
        return "postgres " + (host.hasPrefix("/") ? "\(host)/\(db)" : "\(host):\(port)/\(db)")
    }

    init(connection: String?, password: String?, schema: String?, sslMode: String?, sslRootCert: String?,
         environment: [String: String]) throws(CalpipeError) {
        host = environment["PGHOST"].flatMap { $0.isEmpty ? nil : $0 } ?? host
        if let p = environment["PGPORT"].flatMap({ Int($0) }) { port = p }
        user = environment["PGUSER"] ?? environment["USER"] ?? user
        self.password = environment["PGPASSWORD"]
        database = environment["PGDATABASE"]
        self.sslMode = environment["PGSSLMODE"] ?? self.sslMode
        self.sslRootCert = environment["PGSSLROOTCERT"]
        if let connection, !connection.isEmpty {
            let isURL = connection.hasPrefix("postgres://") || connection.hasPrefix("postgresql://")
            let keywords = try isURL ? Self.urlKeywords(connection) : Self.conninfoKeywords(connection)
            for (key, value) in keywords { try apply(key, value) }
        }
        if let password { self.password = password }
        if let schema { self.schema = schema }
        if let sslMode { self.sslMode = sslMode }
        if let sslRootCert { self.sslRootCert = sslRootCert }
        guard Self.sslModes.contains(self.sslMode) else {
            throw CalpipeError("sslmode \"\(self.sslMode)\": expected one of \(Self.sslModes.joined(separator: ", "))" + Suggestion.hint(for: self.sslMode, in: Self.sslModes))
        }
    }

    private mutating func apply(_ key: String, _ value: String) throws(CalpipeError) {
        switch key {
        case "host": if !value.isEmpty { host = value }
        case "port":
            guard let p = Int(value), (1...65535).contains(p) else { throw CalpipeError("port \"\(value)\": expected a number from 1 to 65535") }
            port = p
        case "user": user = value
        case "password": password = value
        case "dbname": database = value
        case "sslmode": sslMode = value
        case "sslrootcert": sslRootCert = value
        case "schema": schema = value
        default:
            let known = ["host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "schema"]
            throw CalpipeError("unknown connection setting \"\(key)\" (known: \(known.joined(separator: ", ")))" + Suggestion.hint(for: key, in: known))
        }
    }

    /// `postgres://user:password@host:port/dbname?sslmode=require&host=/socket/folder`, percent-decoded.
    static func urlKeywords(_ url: String) throws(CalpipeError) -> [(String, String)] {
        var rest = Substring(url[url.range(of: "://")!.upperBound...])
        var out: [(String, String)] = []
        func decoded(_ s: Substring) throws(CalpipeError) -> String {
            guard let d = String(s).removingPercentEncoding else { throw CalpipeError("the connection URL has a bad %-escape") }
            return d
        }
        var query: Substring = ""
        if let q = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: q)...]
            rest = rest[..<q]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userinfo.firstIndex(of: ":") {
                let user = try decoded(userinfo[..<colon])
                let password = try decoded(userinfo[userinfo.index(after: colon)...])
                out += [("user", user), ("password", password)]
            } else if !userinfo.isEmpty {
                let user = try decoded(userinfo)
                out.append(("user", user))
            }
        }
        if !rest.isEmpty {
            // [::1]:5432, host:5432, host
            var hostPart = rest
            if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                out.append(("host", String(rest[rest.index(after: rest.startIndex)..<close])))
                hostPart = rest[rest.index(after: close)...]
                if hostPart.hasPrefix(":") { out.append(("port", String(hostPart.dropFirst()))) }
            } else if let colon = rest.lastIndex(of: ":") {
                let host = try decoded(rest[..<colon])
                out += [("host", host), ("port", String(rest[rest.index(after: colon)...]))]
            } else {
                let host = try decoded(hostPart)
                out.append(("host", host))
            }
        }
        if !path.isEmpty {
            let database = try decoded(path)
            out.append(("dbname", database))
        }
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try decoded(kv[0])
            let value = try kv.count > 1 ? decoded(kv[1]) : ""
            out.append((key, value))
        }
        return out
    }

    /// libpq's `key=value key='quoted value'` form (backslash escapes a quote or backslash).
    static func conninfoKeywords(_ text: String) throws(CalpipeError) -> [(String, String)] {
        var out: [(String, String)] = []
        var chars = Array(text)[...]
        func skipSpaces() { while let c = chars.first, c.isWhitespace { chars = chars.dropFirst() } }
        skipSpaces()
        while !chars.isEmpty {
            var key = ""
            while let c = chars.first, c != "=", !c.isWhitespace { key.append(c); chars = chars.dropFirst() }
            skipSpaces()
            guard chars.first == "=" else { throw CalpipeError("connection setting \"\(key)\": expected key=value (or a postgres:// URL)") }
            chars = chars.dropFirst()
            skipSpaces()
            var value = ""
            if chars.first == "'" {
                chars = chars.dropFirst()
                var closed = false
                while let c = chars.first {
                    chars = chars.dropFirst()
                    if c == "\\", let next = chars.first { value.append(next); chars = chars.dropFirst(); continue }
                    if c == "'" { closed = true; break }
                    value.append(c)
                }
                guard closed else { throw CalpipeError("connection setting \"\(key)\": the quote is not closed") }
            } else {
                while let c = chars.first, !c.isWhitespace { value.append(c); chars = chars.dropFirst() }
            }
            out.append((key, value))
            skipSpaces()
        }
        return out
    }

    /// PostgresNIO's configuration: TCP or Unix socket, TLS as `sslmode` says (verify-ca/verify-full check the
    /// server's certificate against `sslrootcert`, else the system's roots; require encrypts without checking).
    func configuration() throws -> PostgresConnection.Configuration {
        if let socketPath {
            return PostgresConnection.Configuration(unixSocketPath: socketPath, username: user, password: password, database: database)
        }
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case "disable", "allow":
            tls = .disable
        default:
            var config = TLSConfiguration.makeClientConfiguration()
            switch sslMode {
            case "verify-full": config.certificateVerification = .fullVerification
            case "verify-ca": config.certificateVerification = .noHostnameVerification
            default: config.certificateVerification = .none
            }
            if let sslRootCert { config.trustRoots = .file(sslRootCert) }
            let context = try NIOSSLContext(configuration: config)
            tls = sslMode == "prefer" ? .prefer(context) : .require(context)
        }
        var configuration = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }
}
#endif
