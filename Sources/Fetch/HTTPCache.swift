import CalSQLite
import Foundation

/// One cached answer.
public struct CacheEntry: Sendable, Hashable {
    public var url: String
    public var status: Int
    public var body: [UInt8]
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    /// When it was stored and until when it is fresh (seconds since 1970, the client's clock).
    public var storedAt: Double
    public var freshUntil: Double

    public init(url: String, status: Int, body: [UInt8], contentType: String?, etag: String?, lastModified: String?, storedAt: Double, freshUntil: Double) {
        self.url = url
        self.status = status
        self.body = body
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.storedAt = storedAt
        self.freshUntil = freshUntil
    }

    public func isFresh(at now: Double) -> Bool { now < freshUntil }

    var response: HTTPResponse {
        var headers: [String: String] = [:]
        if let contentType { headers["content-type"] = contentType }
        if let etag { headers["etag"] = etag }
        if let lastModified { headers["last-modified"] = lastModified }
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}

/// The persistent HTTP cache: one SQLite file shared by every run (runs are separate processes, so WAL mode
/// and a busy timeout let two of them meet), keyed by the normalised URL. The one owner of its connection;
/// not thread-safe by itself (`HTTPFetcher` serialises access).
public final class HTTPCache {
    public let path: String
    private let database: Database

    /// Opens (or creates) the cache file, creating its folder.
    public init(path: String) throws {
        self.path = path
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        database = try Database(path: path, configuration: Database.Configuration(busyTimeoutMilliseconds: 5_000, journalMode: .wal))
        try database.execute("""
            CREATE TABLE IF NOT EXISTS http_cache (
                key TEXT PRIMARY KEY NOT NULL,
                url TEXT NOT NULL,
                status INTEGER NOT NULL,
                body BLOB NOT NULL,
                content_type TEXT,
                etag TEXT,
                last_modified TEXT,
                stored_at REAL NOT NULL,
                fresh_until REAL NOT NULL
            )
            """)
    }

    public func entry(forKey key: String) throws -> CacheEntry? {
        let rows = try database.rows(
            "SELECT url, status, body, content_type, etag, last_modified, stored_at, fresh_until FROM http_cache WHERE key = ?",
            arguments: [.text(key)])
        guard let row = rows.first, row.count == 8 else { return nil }
        guard let url = row[0].text, let status = row[1].int64, let storedAt = row[6].double, let freshUntil = row[7].double else { return nil }
        var body: [UInt8] = []
        switch row[2] {
        case .blob(let b): body = b
        case .text(let s): body = Array(s.utf8)
        default: break
        }
        return CacheEntry(url: url, status: Int(status), body: body, contentType: row[3].text, etag: row[4].text,
                          lastModified: row[5].text, storedAt: storedAt, freshUntil: freshUntil)
    }

    public func store(_ entry: CacheEntry, forKey key: String) throws {
        func optional(_ s: String?) -> SQLiteValue { s.map { .text($0) } ?? .null }
        try database.execute("""
            INSERT OR REPLACE INTO http_cache (key, url, status, body, content_type, etag, last_modified, stored_at, fresh_until)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [.text(key), .text(entry.url), .integer(Int64(entry.status)), .blob(entry.body), optional(entry.contentType),
                             optional(entry.etag), optional(entry.lastModified), .real(entry.storedAt), .real(entry.freshUntil)])
    }

    public func remove(key: String) throws {
        try database.execute("DELETE FROM http_cache WHERE key = ?", arguments: [.text(key)])
    }

    /// Removes entries that expired and were stored more than `keepSeconds` ago: forecasts for past date
    /// ranges are never asked for again, so the file would otherwise only grow. Entries kept for good
    /// (geocoding) never expire. Returns how many went.
    @discardableResult
    public func prune(now: Double, keepSeconds: Double) throws -> Int {
        try database.execute("DELETE FROM http_cache WHERE fresh_until < ? AND stored_at < ?", arguments: [.real(now), .real(now - keepSeconds)])
        return database.changes
    }

    /// Number of entries, for tests and `calpipe cache` style reports.
    public func count() throws -> Int {
        try database.scalarInt("SELECT COUNT(*) FROM http_cache") ?? 0
    }

    /// The default cache file: `$CALPIPE_CACHE`, else `$XDG_CACHE_HOME/calpipe/http-cache.sqlite`,
    /// else `~/.cache/calpipe/http-cache.sqlite`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let explicit = environment["CALPIPE_CACHE"], !explicit.isEmpty { return explicit }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/calpipe/http-cache.sqlite" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/calpipe/http-cache.sqlite"
    }
}
