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

    /// Opens a file; "-" reads standard input.
    public init(path: String, label: String? = nil) throws {
        self.label = label ?? path
        if path == "-" {
            descriptor = STDIN_FILENO
            ownsDescriptor = false
            return
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw InputError(label: label ?? path, message: "cannot open (\(systemErrorText()))")
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw InputError(label: label ?? path, message: "is a directory, not a file")
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
            if n >= 0 { return n }
            if errno != EINTR { throw InputError(label: label, message: "read failed (\(systemErrorText()))") }
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

    /// Reads everything that is left (for small inputs and formats that need the whole document).
    public func readAll() throws -> [UInt8] {
        var all: [UInt8] = []
        while try read(into: &all) > 0 {}
        return all
    }
}

/// An input that cannot be read at all: missing file, directory, unreachable URL.
public struct InputError: Error, CustomStringConvertible, Sendable {
    public var label: String
    public var message: String

    public init(label: String, message: String) {
        self.label = label
        self.message = message
    }

    public var description: String { "\(label): \(message)" }
}

/// The text of the current `errno`.
public func systemErrorText() -> String {
    guard let text = strerror(errno) else { return "error \(errno)" }
    return String(validatingCString: text) ?? "error \(errno)"
}
