import CalSQLite
import Foundation
import CalHash
import Pipeline

/// The persistent HTTP cache: one SQLite file shared by every run (runs are separate processes, so WAL mode
/// and a busy timeout let two of them meet), keyed by the normalised URL, with large bodies as files in a
/// folder beside it (`<path>.bodies`). The one owner of its connection; not thread-safe by itself
/// (`HTTPFetcher` serialises access).
public final class HTTPCache {
    public let path: String
    public let bodiesFolder: URL
    private let database: Database
    /// Set when the file was damaged (or not a cache) and has been moved aside and rebuilt: the warning to show.
    public private(set) var repairNote: String?

    /// The layout version in `PRAGMA user_version`; a cache of another version is emptied and rebuilt.
    static let schemaVersion = 2

    /// Opens (or creates) the cache file, creating its folder. A damaged file is moved aside
    /// (`<path>.corrupt-<time>`) and a new cache made in its place (`repairNote` says so).
    public init(path: String, busyTimeoutMilliseconds: Int = 30_000) throws {
        self.path = path
        bodiesFolder = URL(fileURLWithPath: path + ".bodies")
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        do {
            database = try Self.open(path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, bodies: bodiesFolder)
        } catch let error as SQLiteError where error.code == 11 || error.code == 26 {  // SQLITE_CORRUPT, SQLITE_NOTADB
            let aside = path + ".corrupt-\(Int(Date().timeIntervalSince1970))"
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
            }
            try? FileManager.default.removeItem(at: bodiesFolder)  // bodies of a lost index are of no use
            repairNote = "the HTTP cache \(path) was damaged (\(error.reason)); moved it to \(aside) and started a new one"
            database = try Self.open(path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, bodies: bodiesFolder)
        }
    }

    private static func open(_ path: String, busyTimeoutMilliseconds: Int, bodies: URL) throws -> Database {
        let database = try Database(path: path, configuration: Database.Configuration(busyTimeoutMilliseconds: busyTimeoutMilliseconds, journalMode: .wal))
        let check = try database.rows("PRAGMA quick_check").compactMap { $0.first?.text }
        if check != ["ok"] { throw SQLiteError(code: 11, message: check.prefix(3).joined(separator: "; ")) }
        if try database.userVersion != schemaVersion {
            // An older layout (or a new file): start empty; old body files go with it.
            try database.execute("DROP TABLE IF EXISTS http_cache")
            try? FileManager.default.removeItem(at: bodies)
        }
        try database.execute("""
            CREATE TABLE IF NOT EXISTS http_cache (
                key TEXT PRIMARY KEY NOT NULL,
                url TEXT NOT NULL,
                status INTEGER NOT NULL,
                body BLOB NOT NULL,
                body_file TEXT,
                body_length INTEGER NOT NULL,
                body_sha256 TEXT NOT NULL,
                content_type TEXT,
                etag TEXT,
                last_modified TEXT,
                stored_at REAL NOT NULL,
                fresh_until REAL NOT NULL
            )
            """)
        if try database.userVersion != schemaVersion { try database.setUserVersion(schemaVersion) }
        return database
    }

    /// What the cache holds for a key.
    public enum Lookup: Sendable, Hashable {
        case missing
        case valid(CacheEntry)
        /// The entry was there but its body is not what was stored (truncated, changed, gone); it has been
        /// removed. The text says what was wrong.
        case damaged(String)
    }

    /// The entry for a key, with its body checked against the stored length and SHA-256.
    public func lookup(forKey key: String) throws -> Lookup {
        let rows = try database.rows(
            "SELECT url, status, body, body_file, content_type, etag, last_modified, stored_at, fresh_until, body_length, body_sha256 FROM http_cache WHERE key = ?",
            arguments: [.text(key)])
        guard let row = rows.first, row.count == 11 else { return .missing }
        guard let url = row[0].text, let status = row[1].int64, let storedAt = row[7].double, let freshUntil = row[8].double,
              let length = row[9].int64, let digest = row[10].text else {
            try remove(key: key)
            return .damaged("unreadable cache entry")
        }
        var body: [UInt8] = []
        if case .blob(let b) = row[2] { body = b }
        let entry = CacheEntry(url: url, status: Int(status), body: body, bodyFile: row[3].text, contentType: row[4].text, etag: row[5].text,
                               lastModified: row[6].text, storedAt: storedAt, freshUntil: freshUntil, bodyLength: length, bodySHA256: digest)
        if let problem = verify(entry) {
            try remove(key: key)
            return .damaged(problem)
        }
        return .valid(entry)
    }

    /// The entry for a key when it is there and whole (see `lookup`).
    public func entry(forKey key: String) throws -> CacheEntry? {
        if case .valid(let entry) = try lookup(forKey: key) { return entry }
        return nil
    }

    /// Why the entry's body is not the one stored, or nil when it is.
    private func verify(_ entry: CacheEntry) -> String? {
        if let file = entry.bodyFile {
            let path = bodyURL(file).path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), let size = attributes[.size] as? NSNumber else {
                return "the cached body file is missing"
            }
            if size.int64Value != entry.bodyLength { return "the cached body has \(size.int64Value) bytes, \(entry.bodyLength) were stored" }
            guard let digest = SHA256.digest(ofFile: path) else { return "the cached body file cannot be read" }
            if digest.length != entry.bodyLength { return "the cached body has \(digest.length) bytes, \(entry.bodyLength) were stored" }
            return digest.hex == entry.bodySHA256 ? nil : "the cached body's SHA-256 differs from the stored one"
        }
        if Int64(entry.body.count) != entry.bodyLength { return "the cached body has \(entry.body.count) bytes, \(entry.bodyLength) were stored" }
        return SHA256.hex(of: entry.body) == entry.bodySHA256 ? nil : "the cached body's SHA-256 differs from the stored one"
    }

    /// Stores (or replaces) an entry; a body file it no longer uses is deleted.
    public func store(_ entry: CacheEntry, forKey key: String) throws {
        let previous = try bodyFile(forKey: key)
        func optional(_ s: String?) -> SQLiteValue { s.map { .text($0) } ?? .null }
        try database.execute("""
            INSERT OR REPLACE INTO http_cache (key, url, status, body, body_file, body_length, body_sha256, content_type, etag, last_modified,
                                               stored_at, fresh_until)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [.text(key), .text(entry.url), .integer(Int64(entry.status)), .blob(entry.body), optional(entry.bodyFile),
                             .integer(entry.bodyLength), .text(entry.bodySHA256),
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
