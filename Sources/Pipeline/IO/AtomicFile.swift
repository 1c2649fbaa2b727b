import Foundation

/// Writes a file so that readers see either the old content or the new, never half of it: bytes go to a
/// temporary file next to the target, which is flushed and renamed over the target on `commit`.
/// `"-"` writes to standard output instead (no atomicity there). The one owner of its file descriptor.
public final class AtomicFile {
    public let path: String
    private let temporaryPath: String?
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private var finished = false
    private static let flushThreshold = 1 << 16

    public init(path: String) throws {
        self.path = path
        if path == "-" {
            temporaryPath = nil
            descriptor = STDOUT_FILENO
            return
        }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        Self.removeStaleTemporaryFiles(directory: directory, name: url.lastPathComponent)
        let template = directory + "/." + url.lastPathComponent + ".calpipe-XXXXXX"
        var chars = Array(template.utf8CString)
        let fd = chars.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw RunFailure.failed("\(path): cannot create a temporary file in \(directory) (\(String(cString: strerror(errno))))") }
        // Held until the file is closed (also by a crash or SIGKILL): the next run knows a live file from a stale one.
        _ = flock(fd, LOCK_EX | LOCK_NB)
        descriptor = fd
        temporaryPath = String(decoding: chars.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        _ = fchmod(fd, 0o644)
    }

    /// Removes temporary files `.NAME.calpipe-XXXXXX` that an earlier run left beside the target (killed before
    /// it could rename or remove them): those no live process holds locked.
    static func removeStaleTemporaryFiles(directory: String, name: String) {
        let prefix = "." + name + ".calpipe-"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries where entry.hasPrefix(prefix) && entry.count == prefix.count + 6 {
            let stale = directory + "/" + entry
            let fd = open(stale, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { unlink(stale) }
            close(fd)
        }
    }

    deinit {
        if !finished { abort() }
    }

    public func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    public func write(bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    private func flush() throws {
        if let error = writeAll(buffer, to: descriptor) { throw RunFailure.failed("\(path): write failed (\(error))") }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, syncs and renames the temporary file over the target.
    public func commit() throws {
        try flush()
        finished = true
        guard let temporaryPath else { return }
        if fsync(descriptor) != 0 {
            let message = String(cString: strerror(errno))
            close(descriptor); unlink(temporaryPath)
            throw RunFailure.failed("\(path): sync failed (\(message))")
        }
        close(descriptor)
        if rename(temporaryPath, path) != 0 {
            let message = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw RunFailure.failed("\(path): cannot replace the file (\(message))")
        }
    }

    /// Drops the temporary file; the target keeps its previous content.
    public func abort() {
        guard !finished else { return }
        finished = true
        buffer.removeAll()
        guard let temporaryPath else { return }
        close(descriptor)
        unlink(temporaryPath)
    }
}
