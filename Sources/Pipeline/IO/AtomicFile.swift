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
        let template = directory + "/." + url.lastPathComponent + ".calpipe-XXXXXX"
        var chars = Array(template.utf8CString)
        let fd = chars.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw RunFailure.failed("\(path): cannot create a temporary file in \(directory) (\(String(cString: strerror(errno))))") }
        descriptor = fd
        temporaryPath = String(decoding: chars.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        _ = fchmod(fd, 0o644)
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
