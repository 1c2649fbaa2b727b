import Foundation

/// Bytes for the XML reader. libxml2 never opens files or URLs itself: every byte it parses comes through
/// an input like this (so no transparent gzip, no `file://` or `http://` loading behind our back).
public protocol XMLInput: AnyObject {
    /// Fills up to `buffer.count` bytes; returns the number written, 0 at the end of the input.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// A file (or standard input for "-") read through its own descriptor. The one owner of that descriptor.
public final class XMLFileInput: XMLInput {
    public let label: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool

    public init(path: String, label: String? = nil) throws {
        self.label = label ?? path
        if path == "-" {
            descriptor = STDIN_FILENO
            ownsDescriptor = false
            return
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw XMLError(message: "cannot open (\(String(cString: strerror(errno))))", line: 0, column: 0, file: label ?? path)
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw XMLError(message: "is a directory, not a file", line: 0, column: 0, file: label ?? path)
        }
        descriptor = fd
        ownsDescriptor = true
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = Foundation.read(descriptor, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw XMLError(message: "read failed (\(String(cString: strerror(errno))))", line: 0, column: 0, file: label)
        }
    }
}

/// XML already in memory.
public final class XMLBytesInput: XMLInput {
    private let bytes: [UInt8]
    private var position = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public convenience init(_ text: String) {
        self.init(Array(text.utf8))
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, bytes.count - position)
        if n > 0 {
            bytes.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: n)
            }
            position += n
        }
        return n
    }
}

/// Bytes produced on demand by a closure (generated inputs, adapters over other readers).
public final class XMLGeneratedInput: XMLInput {
    private let produce: (UnsafeMutableRawBufferPointer) throws -> Int

    public init(_ produce: @escaping (UnsafeMutableRawBufferPointer) throws -> Int) {
        self.produce = produce
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try produce(buffer)
    }
}
