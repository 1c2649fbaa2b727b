import CalSQLite
import Foundation

/// The persistent HTTP cache: one SQLite file shared by every run (runs are separate processes, so WAL mode
/// and a busy timeout let two of them meet), keyed by the normalised URL, with large bodies as files in a
/// folder beside it (`<path>.bodies`). The one owner of its connection; not thread-safe by itself
/// (`HTTPFetcher` serialises access).
public final class HTTPCache {
    public let path: String
    public let bodiesFolder: URL
    private let database: Database

    /// Opens (or creates) the cache file, creating its folder.
    public init(path: String) throws {
        self.path = path
        bodiesFolder = URL(fileURLWithPath: path + ".bodies")
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        database = try Database(path: path, configuration: Database.Configuration(busyTimeoutMilliseconds: 5_000, journalMode: .wal))
        try database.execute("""
            CREATE TABLE IF NOT EXISTS http_cache (
                key TEXT PRIMARY KEY NOT NULL,
                url TEXT NOT NULL,
                status INTEGER NOT NULL,
                body BLOB NOT NULL,
                body_file TEXT,
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
            "SELECT url, status, body, body_file, content_type, etag, last_modified, stored_at, fresh_until FROM http_cache WHERE key = ?",
            arguments: [.text(key)])
        guard let row = rows.first, row.count == 9 else { return nil }
        guard let url = row[0].text, let status = row[1].int64, let storedAt = row[7].double, let freshUntil = row[8].double else { return nil }
        var body: [UInt8] = []
        if case .blob(let b) = row[2] { body = b }
        let entry = CacheEntry(url: url, status: Int(status), body: body, bodyFile: row[3].text, contentType: row[4].text, etag: row[5].text,
                               lastModified: row[6].text, storedAt: storedAt, freshUntil: freshUntil)
        // A body file removed behind our back (a cleaned cache folder): the entry is useless.
        if let file = entry.bodyFile, !FileManager.default.fileExists(atPath: bodyURL(file).path) {
            try remove(key: key)
            return nil
        }
        return entry
    }

    /// Stores (or replaces) an entry; a body file it no longer uses is deleted.
    public func store(_ entry: CacheEntry, forKey key: String) throws {
        let previous = try bodyFile(forKey: key)
        func optional(_ s: String?) -> SQLiteValue { s.map { .text($0) } ?? .null }
        try database.execute("""
            INSERT OR REPLACE INTO http_cache (key, url, status, body, body_file, content_type, etag, last_modified, stored_at, fresh_until)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [.text(key), .text(entry.url), .integer(Int64(entry.status)), .blob(entry.body), optional(entry.bodyFile),
                             optional(entry.contentType), optional(entry.etag), optional(entry.lastModified), .real(entry.storedAt),
                             .real(entry.freshUntil)])
        if let previous, previous != entry.bodyFile { try? FileManager.default.removeItem(at: bodyURL(previous)) }
    }

    public func remove(key: String) throws {
        let file = try bodyFile(forKey: key)
        try database.execute("DELETE FROM http_cache WHERE key = ?", arguments: [.text(key)])
        if let file { try? FileManager.default.removeItem(at: bodyURL(file)) }
    }

    private func bodyFile(forKey key: String) throws -> String? {
        try database.rows("SELECT body_file FROM http_cache WHERE key = ?", arguments: [.text(key)]).first?.first?.text
    }

    /// Moves a downloaded file into the bodies folder; returns its name there.
    public func adopt(_ file: URL) throws -> String {
        try FileManager.default.createDirectory(at: bodiesFolder, withIntermediateDirectories: true)
        let name = UUID().uuidString.lowercased()
        let target = bodyURL(name)
        do {
            try FileManager.default.moveItem(at: file, to: target)
        } catch {
            // Another file system: copy, then drop the original.
            try FileManager.default.copyItem(at: file, to: target)
            try? FileManager.default.removeItem(at: file)
        }
        return name
    }

    public func bodyURL(_ name: String) -> URL {
        bodiesFolder.appendingPathComponent(name)
    }

    /// Removes entries that expired and were stored more than `keepSeconds` ago: forecasts for past date
    /// ranges are never asked for again, so the file would otherwise only grow. Entries kept for good
    /// (geocoding) never expire. Returns how many went.
    @discardableResult
    public func prune(now: Double, keepSeconds: Double) throws -> Int {
        let condition = "fresh_until < ? AND stored_at < ?"
        let arguments: [SQLiteValue] = [.real(now), .real(now - keepSeconds)]
        let files = try database.rows("SELECT body_file FROM http_cache WHERE body_file IS NOT NULL AND " + condition, arguments: arguments)
            .compactMap { $0.first?.text }
        try database.execute("DELETE FROM http_cache WHERE " + condition, arguments: arguments)
        let removed = database.changes
        for file in files { try? FileManager.default.removeItem(at: bodyURL(file)) }
        return removed
    }

    /// Number of entries, for tests and reports.
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
