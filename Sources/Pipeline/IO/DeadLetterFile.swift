#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Where rejected records go so that none is lost (`--rejected FILE`, or the pipeline's `"rejected"` key): one
/// JSON object per line, appended, for every record a run rejects: when the run ran, the pipeline, the source,
/// the file, line or JSON path, the reason, and the record's raw text where the reader has it (an iCalendar
/// event's unfolded text, a JSON record, a program's output line).
///
/// Appended, not replaced: an incremental run does not read an unchanged source again, so its rejected records
/// are not rejected again either; what an earlier run put here stays until you remove it. Each line is written
/// with one `write` on a file opened for appending, so lines of two runs never mix; `close` syncs the file.
public final class DeadLetterFile: Sendable {
    private let descriptor: Locked<Int32>
    /// The file as messages name it.
    public let label: String
    private let head: String

    /// Opens (creates) the file for appending, with its missing folders.
    public init(path: String, label: String, pipeline: String, runTime: Int64) throws(CalpipeError) {
        self.label = label
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CalpipeError("cannot write the rejected records: " + FileProblem.writeProblem(path: path, label: label, errorNumber: errno))
        }
        descriptor = Locked(fd)
        let time = CivilDateTime(secondsSinceEpoch: runTime).iso8601 + "Z"
        head = "{\"run\":\(Self.quoted(time)),\"pipeline\":\(Self.quoted(pipeline))"
    }

    /// Appends one rejected record.
    public func write(_ rejection: Rejection, source: String?, raw: String?) {
        var line = head
        line += ",\"source\":" + (source.map(Self.quoted) ?? "null")
        line += ",\"file\":" + Self.quoted(rejection.location.file)
        line += ",\"line\":" + (rejection.location.line.map { String($0) } ?? "null")
        line += ",\"path\":" + (rejection.location.path.map(Self.quoted) ?? "null")
        line += ",\"reason\":" + Self.quoted(rejection.reason)
        line += ",\"raw\":" + (raw.map(Self.quoted) ?? "null")
        line += "}\n"
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            var bytes = Array(line.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return }
                offset += n
            }
            bytes.removeAll()
        }
    }

    /// Syncs and closes the file.
    public func close() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            _ = fsync(fd)
            _ = Glibc.close(fd)
            fd = -1
        }
    }

    deinit { close() }

    static func quoted(_ text: String) -> String {
        var text = text
        return text.withUTF8 { utf8 in
            if JSONEscaping.isPlain(utf8) { return "\"" + String(decoding: utf8, as: UTF8.self) + "\"" }
            let out = UnsafeMutablePointer<UInt8>.allocate(capacity: JSONEscaping.worstCase(utf8.count) + 2)
            defer { out.deallocate() }
            out[0] = 0x22
            let end = JSONEscaping.escape(utf8, to: out + 1)
            end[0] = 0x22
            return String(decoding: UnsafeBufferPointer(start: out, count: end - out + 1), as: UTF8.self)
        }
    }
}
