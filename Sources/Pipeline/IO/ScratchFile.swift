import Foundation

/// A temporary file for bytes that must wait: records a stage holds until the end of the input (the expand
/// stage's series), a sink's output that can only follow a header written last, sorted runs of the JSON days
/// sink. They wait on disk instead of in memory. Its name is removed as soon as it is created, so nothing is
/// left behind whatever happens to the run (finished, failed, interrupted, crashed); the space is freed when
/// the descriptor closes (`close()`, or deinit). The one owner of its descriptor; appends are buffered.
public final class ScratchFile {
    private var descriptor: Int32
    private var pending: [UInt8] = []
    /// Bytes appended so far (written or pending).
    public private(set) var size: Int64 = 0
    private static let flushThreshold = 1 << 16

    /// Creates the file in `directory` (the system's temporary directory when nil) and removes its name.
    /// `prefix` names it while it is open (as `/proc/self/fd` shows it), e.g. "calpipe-spill".
    public init(directory: String? = nil, prefix: String = "calpipe-scratch") throws {
        let folder = directory ?? NSTemporaryDirectory()
        var template = Array((folder + "/" + prefix + "-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            let failure = errno
            let reason = failure == ENOENT ? "the folder does not exist" : FileProblem.reason(errorNumber: failure)
            throw CalpipeError("cannot create a temporary file in \(folder) (\(reason))")
        }
        descriptor = fd
        unlink(String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    deinit { close() }

    /// Frees the file. Later calls do nothing; reads and appends after it throw.
    public func close() {
        guard descriptor >= 0 else { return }
        Foundation.close(descriptor)
        descriptor = -1
        pending = []
    }

    /// Appends the bytes and returns the offset they start at.
    @discardableResult
    public func append(_ bytes: [UInt8]) throws -> Int64 {
        let offset = size
        pending.append(contentsOf: bytes)
        size += Int64(bytes.count)
        if pending.count >= Self.flushThreshold { try flush() }
        return offset
    }

    /// Appends the text's UTF-8 bytes and returns the offset they start at.
    @discardableResult
    public func append(_ text: String) throws -> Int64 {
        let offset = size
        pending.append(contentsOf: text.utf8)
        size += Int64(text.utf8.count)
        if pending.count >= Self.flushThreshold { try flush() }
        return offset
    }

    private func flush() throws {
        guard descriptor >= 0 else { throw CalpipeError("cannot write a temporary file (it is closed)") }
        if let error = writeAll(pending, to: descriptor) { throw CalpipeError("cannot write a temporary file (\(error))") }
        pending.removeAll(keepingCapacity: true)
    }

    /// Reads `count` bytes from `offset` into `buffer` (replacing its content).
    public func read(at offset: Int64, count: Int, into buffer: inout [UInt8]) throws {
        if !pending.isEmpty { try flush() }
        guard descriptor >= 0 else { throw CalpipeError("cannot read a temporary file (it is closed)") }
        guard offset >= 0, count >= 0, offset + Int64(count) <= size else {
            throw CalpipeError("cannot read a temporary file (bytes \(offset)..<\(offset + Int64(count)) are past its end, \(size))")
        }
        if buffer.count != count {
            buffer.removeAll(keepingCapacity: true)
            buffer.append(contentsOf: repeatElement(0, count: count))
        }
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw CalpipeError("cannot read a temporary file (\(n < 0 ? FileProblem.reason(errorNumber: errno) : "it is shorter than expected"))") }
            done += n
        }
    }

    /// `count` bytes from `offset`.
    public func read(at offset: Int64, count: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        try read(at: offset, count: count, into: &out)
        return out
    }

    /// Hands the content to `body` in chunks of up to 1 MiB, from the start.
    public func copy(_ body: ([UInt8]) throws -> Void) throws {
        var chunk: [UInt8] = []
        var offset: Int64 = 0
        while offset < size {
            try read(at: offset, count: Int(min(Int64(1 << 20), size - offset)), into: &chunk)
            try body(chunk)
            offset += Int64(chunk.count)
        }
    }
}
