#if Postgres
import Foundation
import XCTest

/// A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary folder, `pg_ctl` listening on a Unix
/// socket in that folder and on a free 127.0.0.1 port (password authentication over TCP, user `calpipe`, password
/// `secret`), stopped and removed by `stop()`. Debian's `postgresql` package provides the binaries
/// (/usr/lib/postgresql/*/bin); without them the tests skip, or fail under CALPIPE_REQUIRE_TOOLS=1. initdb refuses
/// to run as root: as root, the server's commands run as the `postgres` user (`runuser`), its folder chowned.
final class PostgresCluster: @unchecked Sendable {
    static let user = "calpipe"
    static let password = "secret"

    let folder: URL
    let port: Int
    let bin: URL

    var socketFolder: String { folder.path }
    /// A URL for calpipe (TCP, password).
    var url: String { "postgres://\(Self.user):\(Self.password)@127.0.0.1:\(port)/postgres?sslmode=disable" }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var shared: PostgresCluster?
    nonisolated(unsafe) private static var users = 0

    /// The cluster shared by the test classes of this process (started on first use).
    static func start() throws -> PostgresCluster {
        lock.lock()
        defer { lock.unlock() }
        if let shared { users += 1; return shared }
        let made = try PostgresCluster()
        shared = made
        users = 1
        return made
    }

    /// Stops the shared cluster when its last user is done.
    static func release() {
        lock.lock()
        defer { lock.unlock() }
        users -= 1
        if users <= 0, let cluster = shared {
            cluster.stop()
            shared = nil
        }
    }

    static func binaries() -> URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let bin = root.appendingPathComponent(version).appendingPathComponent("bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        return nil
    }

    private init() throws {
        guard let bin = Self.binaries() else {
            if ProcessInfo.processInfo.environment["CALPIPE_REQUIRE_TOOLS"] == "1" {
                throw NSError(domain: "PostgresCluster", code: 1, userInfo: [NSLocalizedDescriptionKey: "PostgreSQL is not installed (/usr/lib/postgresql/*/bin/initdb)"])
            }
            throw XCTSkip("PostgreSQL is not installed (Debian's postgresql package; scripts/test installs it)")
        }
        self.bin = bin
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("calpipe-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data((Self.password + "\n").utf8).write(to: folder.appendingPathComponent("pw"))
        if getuid() == 0 { try Self.shell(["chown", "-R", "postgres:postgres", folder.path]) }
        try Self.runAsServer(bin, "initdb", ["-D", folder.appendingPathComponent("data").path, "-U", Self.user, "--pwfile", folder.appendingPathComponent("pw").path,
                                             "--auth-local=trust", "--auth-host=scram-sha-256", "--locale=C", "--encoding=UTF8", "--no-sync"])
        var started: Int?
        for _ in 0..<8 {
            let candidate = Int.random(in: 20_000...60_000)
            let options = "-k \(folder.path) -h 127.0.0.1 -p \(candidate) -c fsync=off -c full_page_writes=off -c max_connections=40"
            if (try? Self.runAsServer(bin, "pg_ctl", ["-D", folder.appendingPathComponent("data").path, "-l", folder.appendingPathComponent("log").path,
                                                       "-w", "-t", "60", "-o", options, "start"])) != nil {
                started = candidate
                break
            }
        }
        guard let started else {
            let log = (try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8)) ?? ""
            throw NSError(domain: "PostgresCluster", code: 2, userInfo: [NSLocalizedDescriptionKey: "pg_ctl start failed: \(log.suffix(500))"])
        }
        port = started
    }

    func stop() {
        _ = try? Self.runAsServer(bin, "pg_ctl", ["-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs a server command, as `postgres` when this process is root.
    @discardableResult
    static func runAsServer(_ bin: URL, _ tool: String, _ arguments: [String]) throws -> String {
        let path = bin.appendingPathComponent(tool).path
        return try shell(getuid() == 0 ? ["runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments)
    }

    /// Runs a command to its end (posix_spawn and waitpid: `pg_ctl start` leaves the server running with the
    /// command's output open, which a pipe would wait for), its output in a file; throws when it fails.
    @discardableResult
    static func shell(_ arguments: [String]) throws -> String {
        let outPath = NSTemporaryDirectory() + "calpipe-pg-out-\(UUID().uuidString)"
        defer { unlink(outPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
        guard spawned == 0 else { throw NSError(domain: "PostgresCluster", code: Int(spawned), userInfo: [NSLocalizedDescriptionKey: "cannot start \(arguments[0])"]) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard code == 0 else {
            throw NSError(domain: "PostgresCluster", code: Int(code),
                          userInfo: [NSLocalizedDescriptionKey: "\(arguments.prefix(6).joined(separator: " ")): \(text.suffix(800))"])
        }
        return text
    }

    /// Rows of `sql` through psql (on the Unix socket): fields split, NULL as "\N".
    func query(_ sql: String) throws -> [[String]] {
        let text = try Self.shell([bin.appendingPathComponent("psql").path, "-h", socketFolder, "-p", String(port), "-U", Self.user, "-d", "postgres",
                                   "-X", "-q", "-A", "-t", "-F", "\u{1F}", "-R", "\u{1E}", "-P", "null=\\N", "-v", "ON_ERROR_STOP=1", "-c", sql])
        let trimmed = text.hasSuffix("\n") ? String(text.dropLast()) : text
        if trimmed.isEmpty { return [] }
        return trimmed.split(separator: "\u{1E}", omittingEmptySubsequences: false).map { $0.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init) }
    }
}
#endif
