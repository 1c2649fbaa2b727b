import CalHash
import Foundation

/// One run at a time (issue 18): an exclusive `flock` on a lock file for a pipeline file or a database, held until
/// `release()` or the process ends (also by a crash or SIGKILL: the kernel drops it). The holder writes
/// "pid started-at pipeline" into the file, so a run that finds it taken can say whose it is. The file itself
/// stays (removing it would race with the next run). Lock files live in calpipe's own folder
/// (`RunLock.path(for:environment:)`), never beside the user's files.

package final class RunLock {
    package let path: String
    private var descriptor: Int32

    /// The other run, as its lock file tells it.
    package struct Holder: Sendable, CustomStringConvertible {
        package var pid: String
        package var startedAt: String
        package var pipeline: String

        package var description: String {
            "pid \(pid), started \(startedAt)" + (pipeline.isEmpty ? "" : " (pipeline \(pipeline))")
        }
    }

    /// Takes the lock, waiting up to `wait` seconds for another run to let go (polling every 50 ms; `cancelled`
    /// stops the wait). nil when the lock file cannot be made (a read-only folder): the run goes on unlocked
    /// and meets the folder's own error where it writes. Held by another run: throws `label: held: <holder>;
    /// [gave up after waiting 30 s; ]consequence (calpipe run --wait SECONDS waits for it)`.
    package static func acquire(path: String, pipeline: String, wait: Double, label: String = "", held: String = "another run holds the lock",
                               consequence: String = "not started", cancelled: () -> Bool = { false }) throws -> RunLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        let deadline = Date().addingTimeInterval(max(0, wait))
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno != EWOULDBLOCK && errno != EINTR {
                close(fd)
                return nil
            }
            if Date() >= deadline || cancelled() {
                let holder = readHolder(fd)
                close(fd)
                throw CalpipeError("\(held): \(holder); " + (wait > 0 ? "gave up after waiting \(waitedText(Int(wait * 1000))); " : "")
                                   + "\(consequence) (calpipe run --wait SECONDS waits for it)", file: label.isEmpty ? nil : label)
            }
            usleep(50_000)
        }
        let started = CivilDateTime(secondsSinceEpoch: Int64(Date().timeIntervalSince1970.rounded(.down))).iso8601 + "Z"
        let text = "\(getpid()) \(started) \(pipeline)\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        return RunLock(path: path, descriptor: fd)
    }

    /// The lock file for `target` (a pipeline file or a database): `NAME.HASH.lock` in the first of
    /// `$CALPIPE_LOCKS`, `$XDG_RUNTIME_DIR/calpipe/locks`, `$XDG_CACHE_HOME/calpipe/locks`, `~/.cache/calpipe/locks`
    /// that can be made (created if missing), else the system's temporary folder. HASH is of the target's absolute
    /// path with its folder's symbolic links resolved, so every way of naming one file finds the same lock.
    package static func path(for target: String, environment: [String: String]) -> String {
        let absolute = FileProblem.absolutePath(target)
        let url = URL(fileURLWithPath: absolute)
        let name = url.lastPathComponent
        var folder = url.deletingLastPathComponent().path
        if let real = realpath(folder, nil) {
            folder = String(cString: real)
            free(real)
        }
        let key = SHA256.hex(of: Array((folder + "/" + name).utf8)).prefix(16)
        let file = "\(name.isEmpty ? "run" : name).\(key).lock"
        for candidate in lockFolders(environment: environment) {
            if (try? FileManager.default.createDirectory(atPath: candidate, withIntermediateDirectories: true)) != nil,
               access(candidate, W_OK) == 0 {
                return candidate + "/" + file
            }
        }
        return NSTemporaryDirectory() + "/calpipe-\(getuid())-" + file
    }

    private static func lockFolders(environment: [String: String]) -> [String] {
        func absolute(_ key: String) -> String? {
            guard let value = environment[key], value.hasPrefix("/") else { return nil }
            return value
        }
        var folders: [String] = []
        if let explicit = absolute("CALPIPE_LOCKS") { folders.append(explicit) }
        if let runtime = absolute("XDG_RUNTIME_DIR") { folders.append(runtime + "/calpipe/locks") }
        if let cache = absolute("XDG_CACHE_HOME") { folders.append(cache + "/calpipe/locks") }
        let home = absolute("HOME") ?? NSHomeDirectory()
        if !home.isEmpty { folders.append(home + "/.cache/calpipe/locks") }
        return folders
    }

    /// "300 ms", "30 s", "2 min".
    package static func waitedText(_ ms: Int) -> String {
        if ms < 1000 || ms % 1000 != 0 { return "\(ms) ms" }
        if ms >= 120_000 && ms % 60_000 == 0 { return "\(ms / 60_000) min" }
        return "\(ms / 1000) s"
    }

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    private static func readHolder(_ fd: Int32) -> Holder {
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 511, 0) }
        let text = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ", maxSplits: 2).map(String.init)
        return Holder(pid: parts.count > 0 ? parts[0] : "?", startedAt: parts.count > 1 ? parts[1] : "?", pipeline: parts.count > 2 ? parts[2] : "")
    }

    /// Lets go (the next run may start).
    package func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
