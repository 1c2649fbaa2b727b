import Foundation

/// Writes a file so that readers see either the old content or the new, never half of it: bytes go to a
/// temporary file next to the target (`.NAME.calpipe-XXXXXX`), which is flushed, synced and renamed over the
/// target on `commit`. `"-"` writes to standard output instead (no atomicity there). The one owner of its file
/// descriptor.
///
/// With the run's `Cancellation`:
/// - writes stop with `CalpipeError.interrupted` once the run is asked to stop (a signal);
/// - the temporary file is registered, so a run that must end at once can remove it (`Cancellation.stopNow`);
/// - in the runner's commit phase `commit()` leaves the rename to `Cancellation.publish()`, which renames the
///   files of every sink together once all of them are complete.
///
/// A temporary file holds an advisory lock (`flock`) for as long as its writer lives. Opening an `AtomicFile`
/// removes the unlocked temporary files of the same target: those a killed run left behind (SIGKILL, power
/// loss), never those of a run still writing.
public final class AtomicFile {
    public let path: String
    /// The path as the user wrote it, for messages.
    public let label: String
    private let temporaryPath: String?
    private let cancellation: Cancellation?
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private var finished = false
    private static let flushThreshold = 1 << 16
    static let temporaryMarker = ".calpipe-"

    public init(path: String, label: String? = nil, cancellation: Cancellation? = nil) throws {
        self.path = path
        self.label = label ?? FileProblem.display(path)
        self.cancellation = cancellation
        if path == "-" {
            temporaryPath = nil
            descriptor = STDOUT_FILENO
            return
        }
        let absolute = FileProblem.absolutePath(path)
        try Self.makeFolders(for: absolute, label: self.label)
        Self.removeStaleTemporaryFiles(of: absolute)
        (descriptor, temporaryPath) = try Self.makeTemporaryFile(for: absolute, label: self.label)
        if let temporaryPath { cancellation?.register(temporaryFile: temporaryPath) }
    }

    deinit {
        if !finished { abort() }
    }

    public func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    public func write(bytes: [UInt8]) throws {
        try bytes.withUnsafeBufferPointer { try write($0) }
    }

    /// Writes the bytes (valid only during the call). A chunk of at least the flush threshold that finds nothing
    /// buffered goes to the file as it is, without a copy (the JSON sink hands over 1 MiB chunks).
    public func write(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        if buffer.isEmpty && bytes.count >= Self.flushThreshold {
            try writeOut(UnsafeRawBufferPointer(bytes))
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    private func flush() throws {
        try buffer.withUnsafeBytes { try writeOut($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes every byte to the file (or standard output), or throws.
    private func writeOut(_ bytes: UnsafeRawBufferPointer) throws {
        if let reason = cancellation?.stopReason { throw CalpipeError.interrupted(reason) }
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let n = Foundation.write(descriptor, base + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw writeFailure(errno)
            }
            done += n
        }
    }

    private func writeFailure(_ errorNumber: Int32) -> CalpipeError {
        let reason = temporaryPath == nil ? FileProblem.reason(errorNumber: errorNumber)
            : FileProblem.writeProblem(path: path, label: label, errorNumber: errorNumber)
        return CalpipeError("\(label): cannot write: \(reason)")
    }

    /// Flushes and syncs the temporary file and renames it over the target (in the runner's commit phase the
    /// rename waits for `Cancellation.publish()`).
    public func commit() throws {
        try flush()
        guard let temporaryPath else {
            finished = true
            return
        }
        if fsync(descriptor) != 0 { throw writeFailure(errno) }
        finished = true
        if let cancellation, cancellation.deferRename(temporary: temporaryPath, target: path, label: label, descriptor: descriptor) {
            return
        }
        defer {
            close(descriptor)
            cancellation?.unregister(temporaryFile: temporaryPath)
        }
        if rename(temporaryPath, path) != 0 {
            let failure = writeFailure(errno)
            unlink(temporaryPath)
            throw failure
        }
        FileProblem.syncFolder(of: path)
    }

    /// Drops the temporary file; the target keeps its previous content.
    public func abort() {
        guard !finished else { return }
        finished = true
        buffer.removeAll()
        guard let temporaryPath else { return }
        unlink(temporaryPath)
        close(descriptor)
        cancellation?.unregister(temporaryFile: temporaryPath)
    }

    // MARK: Folders and temporary files

    /// Creates the folders on the way to `absolute` that are missing, with messages for what stands in the way.
    /// Creates the missing folders on the way to `absolute` (a file sink's, a database's), or says which part is a file.
    package static func makeFolders(for absolute: String, label: String) throws {
        let folder = FileProblem.parentFolder(absolute)
        var info = stat()
        if stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return }
        var prefix = ""
        for part in folder.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + part
            if stat(prefix, &info) == 0 {
                if (info.st_mode & S_IFMT) == S_IFDIR { continue }
                throw CalpipeError("\(label): cannot write: \"\(FileProblem.shown(prefix, of: absolute, label: label))\" is a file, not a folder")
            }
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                let failure = errno
                let shown = FileProblem.shown(prefix, of: absolute, label: label)
                let reason: String
                switch failure {
                case EACCES, EPERM:
                    let parent = FileProblem.shown(FileProblem.parentFolder(prefix), of: absolute, label: label)
                    reason = "cannot create the folder \"\(shown)\": permission denied (the folder \"\(parent)\" is not writable)"
                default:
                    reason = "cannot create the folder \"\(shown)\": \(FileProblem.reason(errorNumber: failure))"
                }
                throw CalpipeError("\(label): cannot write: \(reason)")
            }
        }
    }

    /// A new locked temporary file next to `absolute`.
    private static func makeTemporaryFile(for absolute: String, label: String) throws -> (Int32, String) {
        let folder = FileProblem.parentFolder(absolute)
        let name = String(absolute[absolute.index(after: absolute.lastIndex(of: "/")!)...])
        let template = folder + "/." + name + temporaryMarker + "XXXXXX"
        // Another run's clean-up may take a file between mkstemp and flock (it finds it unlocked): then try again.
        for _ in 0..<8 {
            var chars = Array(template.utf8CString)
            let fd = chars.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else {
                throw CalpipeError("\(label): cannot write: \(FileProblem.writeProblem(path: absolute, label: label, errorNumber: errno))")
            }
            let temporary = String(decoding: chars.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var info = stat()
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            if flock(fd, LOCK_EX | LOCK_NB) == 0, fstat(fd, &info) == 0, info.st_nlink > 0 {
                _ = fchmod(fd, 0o644)
                return (fd, temporary)
            }
            close(fd)
        }
        throw CalpipeError("\(label): cannot write: could not create a temporary file next to it")
    }

    /// Removes the temporary files of `absolute` that no living writer holds (left by a killed run).
    /// Returns how many it removed.
    @discardableResult
    static func removeStaleTemporaryFiles(of absolute: String) -> Int {
        let folder = FileProblem.parentFolder(absolute)
        let name = String(absolute[absolute.index(after: absolute.lastIndex(of: "/")!)...])
        let prefix = "." + name + temporaryMarker
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var removed = 0
        for entry in entries where entry.hasPrefix(prefix) && entry.utf8.count == prefix.utf8.count + 6 {
            let candidate = folder + "/" + entry
            let fd = open(candidate, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { continue }
            var info = stat()
            if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0 {
                if unlink(candidate) == 0 { removed += 1 }
            }
            close(fd)
        }
        return removed
    }
}
