import Foundation

/// Reads a file (or standard input) in large chunks of bytes. The one owner of its file descriptor.
public final class ChunkReader {
    /// The name used in messages: the path as the user wrote it, "-" for stdin, or the URL.
    public let label: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// Where `read(into: inout [UInt8])` reads before appending; allocated on first use.
    private var scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 0, alignment: 1)
    public static let defaultChunkSize = 1 << 20
    /// Counts the bytes read, for the progress line (percent and time left of inputs of known size).
    private let progress: RunReport?

    /// Opens a file; "-" reads standard input. Bytes read are added to `progress.inputBytesRead`.
    public init(path: String, label: String? = nil, progress: RunReport? = nil) throws {
        self.label = label ?? path
        self.progress = progress
        if path == "-" {
            descriptor = STDIN_FILENO
            ownsDescriptor = false
            return
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw CalpipeError("cannot read: " + FileProblem.readProblem(path: path, label: label, errorNumber: errno), file: label ?? path)
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw CalpipeError("cannot read: it is a folder, not a file", file: label ?? path)
        }
        descriptor = fd
        ownsDescriptor = true
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
        scratch.deallocate()
    }

    /// Reads up to `buffer.count` bytes into `buffer`; returns the number read, 0 at the end of the input.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = Foundation.read(descriptor, base, buffer.count)
            if n >= 0 {
                progress?.readInput(bytes: n)
                return n
            }
            if errno != EINTR { throw CalpipeError("cannot read: " + FileProblem.reason(errorNumber: errno), file: label) }
        }
    }

    /// Appends up to `maximum` bytes to `buffer`; returns the number read, 0 at the end of the input.
    public func read(into buffer: inout [UInt8], maximum: Int = ChunkReader.defaultChunkSize) throws -> Int {
        if scratch.count < maximum {
            scratch.deallocate()
            scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: maximum, alignment: 1)
        }
        let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<maximum]))
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<n]))
        return n
    }

    /// Hands the rest of the input to `body` chunk by chunk (up to `chunkSize` bytes each), read straight into
    /// one buffer that `body` borrows: no copy per chunk. The bytes are valid only during the call.
    public func forEachChunk(chunkSize: Int = ChunkReader.defaultChunkSize, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, chunkSize), alignment: 16)
        defer { buffer.deallocate() }
        let bytes = UnsafeBufferPointer(buffer.bindMemory(to: UInt8.self))
        while true {
            let count = try read(into: buffer)
            guard count > 0 else { return }
            try body(UnsafeBufferPointer(rebasing: bytes[0..<count]))
        }
    }

    /// Reads everything that is left (for small inputs and formats that need the whole document).
    public func readAll() throws -> [UInt8] {
        var all: [UInt8] = []
        while try read(into: &all) > 0 {}
        return all
    }
}

/// Writes all of `bytes` to `descriptor`, retrying after EINTR and short writes. Returns nil, or the text of
/// the reason that stopped it, in our words (for the caller's message).
func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> String? {
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + done, $0.count - done) }
        if n < 0 {
            if errno == EINTR { continue }
            return FileProblem.reason(errorNumber: errno)
        }
        done += n
    }
    return nil
}
