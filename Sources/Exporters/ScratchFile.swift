import Foundation
import Pipeline

/// A temporary file that holds bytes a sink must write later (in another order, or after a header it can
/// only write at the end), so they wait on disk instead of in memory. Unlinked at once: nothing is left
/// behind, even after a crash. The one owner of its descriptor; appends are buffered.
final class ScratchFile {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    /// Bytes appended so far (written or pending).
    private(set) var size: Int64 = 0
    private static let flushThreshold = 1 << 16

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/calpipe-scratch-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw RunFailure.failed("cannot create a temporary file (\(systemErrorText()))") }
        descriptor = fd
        unlink(String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    deinit { close(descriptor) }

    func append(_ bytes: [UInt8]) throws {
        pending.append(contentsOf: bytes)
        size += Int64(bytes.count)
        if pending.count >= Self.flushThreshold { try flush() }
    }

    func append(_ text: String) throws {
        pending.append(contentsOf: text.utf8)
        size += Int64(text.utf8.count)
        if pending.count >= Self.flushThreshold { try flush() }
    }

    private func flush() throws {
        var offset = 0
        while offset < pending.count {
            let n = pending.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw RunFailure.failed("cannot write a temporary file (\(systemErrorText()))")
            }
            offset += n
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// `count` bytes from `offset`.
    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        try flush()
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw RunFailure.failed("cannot read a temporary file (\(n < 0 ? systemErrorText() : "it is shorter than expected"))") }
            done += n
        }
        return out
    }

    /// Hands the content to `body` in chunks, from the start.
    func copy(_ body: ([UInt8]) throws -> Void) throws {
        try flush()
        var offset: Int64 = 0
        while offset < size {
            let chunk = try read(at: offset, count: Int(min(Int64(1 << 20), size - offset)))
            try body(chunk)
            offset += Int64(chunk.count)
        }
    }
}
